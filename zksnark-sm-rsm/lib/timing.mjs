// Section timing in the shape of bash's `time`: wall clock (real) and this process's CPU time
// (user, sys), from process.cpuUsage, which counts every thread of the process.

export function startTimer() {
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  return () => {
    const c = process.cpuUsage(c0);
    return { real: Number(process.hrtime.bigint() - t0) / 1e9, user: c.user / 1e6, sys: c.system / 1e6 };
  };
}

export async function timed(fn) {
  const stop = startTimer();
  const value = await fn();
  return { value, time: stop() };
}

export function sumTimes(...times) {
  const out = { real: 0, user: 0, sys: 0 };
  for (const t of times) for (const k of Object.keys(out)) out[k] += t[k];
  return out;
}

/** "0m2.178s", as bash prints it. */
export function bashDuration(s) {
  const ms = Math.round(s * 1000);
  const m = Math.floor(ms / 60000);
  return `${m}m${((ms - m * 60000) / 1000).toFixed(3)}s`;
}

export function timeLines(t) {
  return [`real\t${bashDuration(t.real)}`, `user\t${bashDuration(t.user)}`, `sys\t${bashDuration(t.sys)}`];
}
