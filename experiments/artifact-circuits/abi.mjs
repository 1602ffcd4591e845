// The public inputs of a ZoKrates program's instance, as its verifier takes them: the program's
// public arguments in ABI order, each flattened (arrays element by element, structs member by
// member in declaration order) into field elements written in decimal.

function flatten(t, v, out) {
  switch (t.type) {
    case "field":
    case "u8":
    case "u16":
    case "u32":
    case "u64":
      out.push(BigInt(v).toString());
      return;
    case "bool":
      out.push(v === true || v === "true" ? "1" : "0");
      return;
    case "array":
      if (!Array.isArray(v) || v.length !== t.components.size) throw new Error(`an array of ${t.components.size} expected`);
      for (const x of v) flatten(t.components, x, out);
      return;
    case "struct":
      for (const m of t.components.members) {
        if (!(m.name in v)) throw new Error(`struct member ${m.name} missing`);
        flatten(m, v[m.name], out);
      }
      return;
    default:
      throw new Error(`ABI type ${t.type} not handled`);
  }
}

/** The instance's public inputs (decimal strings), from the ABI and the arguments `args`. */
export function publicInputs(abi, args) {
  if (!Array.isArray(args) || args.length !== abi.inputs.length) {
    throw new Error(`the instance has ${args?.length} arguments, the program ${abi.inputs.length}`);
  }
  const out = [];
  abi.inputs.forEach((t, i) => {
    if (t.public) flatten(t, args[i], out);
  });
  return out;
}
