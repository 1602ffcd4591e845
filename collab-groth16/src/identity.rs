//! Who is who in a run: every process (the coordinator and each party) makes a fresh
//! self-signed certificate when it starts, and the processes learn each other's certificates
//! only over the launcher's pipes, never over the network.
//!
//! **The introductions.** A party prints one line on its standard output, `party <id> <cert>`,
//! and reads one line on its standard input, `coordinator <cert>`. The coordinator that starts
//! the parties reads the first from each child's pipe and writes the second to it, so party
//! `j`'s id is bound to the certificate that came out of process `j`'s own pipe. With
//! `--no-spawn`, whoever starts the processes carries the lines: the coordinator prints its line
//! on its standard output and reads the parties' lines on its standard input. The coordinator
//! then tells every party, over its authenticated link, every party's certificate by id (the
//! plan), which the parties pin in their mesh.
//!
//! **What pinning gives.** Every link is TLS 1.3 with both sides authenticated ([`tls_link`]):
//! the coordinator accepts only the certificates of its parties and learns a party's id from
//! the certificate it presented, not from anything it says; a party dialling the coordinator or
//! another party accepts only that process's certificate. A process that connects with any
//! other certificate, or none, or says nothing, is refused without being sent anything. The
//! private keys never leave their processes.

use std::io::{BufRead, Write};
use std::sync::Arc;

use rustls::{ClientConfig, ServerConfig};
pub use tls_link::{cert_from_hex, cert_to_hex, Certificate, Identity};

use crate::Error;

/// This process's fresh identity.
pub fn generate() -> Result<Identity, Error> {
    Ok(Identity::generate()?)
}

/// The line a party prints on its standard output.
pub fn party_line(id: usize, identity: &Identity) -> String {
    format!("party {id} {}", cert_to_hex(&identity.cert))
}

/// The line the coordinator gives every party on its standard input.
pub fn coordinator_line(identity: &Identity) -> String {
    format!("coordinator {}", cert_to_hex(&identity.cert))
}

/// A party's line: its id and certificate. `from` names where the line came from.
pub fn parse_party_line(line: &str, from: &str) -> Result<(usize, Certificate<'static>), Error> {
    let bad = || {
        Error::Invalid(format!(
            "{from}: expected a line `party <id> <certificate>`, got {:?}",
            truncate(line)
        ))
    };
    match line.split_whitespace().collect::<Vec<_>>().as_slice() {
        ["party", id, cert] => Ok((
            id.parse().map_err(|_| bad())?,
            cert_from_hex(cert).ok_or_else(bad)?,
        )),
        _ => Err(bad()),
    }
}

/// The coordinator's line: its certificate.
pub fn parse_coordinator_line(line: &str) -> Result<Certificate<'static>, Error> {
    let bad = || {
        Error::Invalid(format!(
            "standard input: expected the line `coordinator <certificate>`, got {:?}",
            truncate(line)
        ))
    };
    match line.split_whitespace().collect::<Vec<_>>().as_slice() {
        ["coordinator", cert] => cert_from_hex(cert).ok_or_else(bad),
        _ => Err(bad()),
    }
}

fn truncate(line: &str) -> String {
    let line = line.trim_end();
    match line.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line.to_string(),
    }
}

/// Writes one line and flushes it (a pipe's reader waits for it).
pub fn write_line(mut out: impl Write, line: &str) -> Result<(), Error> {
    writeln!(out, "{line}")?;
    Ok(out.flush()?)
}

/// Reads one line; an error naming `what` if the pipe ends first.
pub fn read_line(mut input: impl BufRead, what: &str) -> Result<String, Error> {
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        return Err(Error::Invalid(format!("{what}: the pipe ended")));
    }
    Ok(line)
}

/// The server side of `identity` for clients presenting one of `clients`. It sends no
/// session tickets: nobody resumes a session here, and a ticket would be bytes a client that
/// never reads its link (the mesh's sending side) leaves unread.
pub fn server_config(
    identity: &Identity,
    clients: Vec<Certificate<'static>>,
) -> Result<Arc<ServerConfig>, Error> {
    let mut config = tls_link::server_config(identity, clients)?.as_ref().clone();
    config.send_tls13_tickets = 0;
    Ok(Arc::new(config))
}

/// The client side of `identity`, trusting exactly `server`.
pub fn client_config(
    identity: &Identity,
    server: &Certificate<'static>,
) -> Result<Arc<ClientConfig>, Error> {
    Ok(tls_link::client_config(identity, vec![server.clone()])?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_bad_lines_are_named() {
        let id = generate().unwrap();
        let (j, cert) = parse_party_line(&party_line(3, &id), "party 3's pipe").unwrap();
        assert_eq!((j, &cert), (3, &id.cert));
        assert_eq!(
            parse_coordinator_line(&coordinator_line(&id)).unwrap(),
            id.cert
        );
        let e = parse_party_line("cert zz", "party 1's pipe").unwrap_err();
        assert!(e.to_string().contains("party 1's pipe"), "{e}");
        assert!(parse_party_line("party x ab", "p").is_err());
        assert!(parse_coordinator_line("coordinator abc").is_err());
        assert!(read_line(&b""[..], "party 0's pipe")
            .unwrap_err()
            .to_string()
            .contains("party 0's pipe"));
    }
}
