//! The netfilter queue protocol (nfnetlink_queue), as much of it as a delay line needs: bind a
//! queue, learn of each queued packet (its id and length, not its bytes), and release packets in
//! order with one batch verdict.
//!
//! Messages are netlink messages (a 16-byte header in host byte order), then a 4-byte
//! netfilter header (family, version, queue number in network byte order), then attributes
//! (2-byte length, 2-byte type, padded to 4 bytes). The queue's own values (packet ids, lengths,
//! verdicts) are in network byte order. Layouts are those of the kernel's UAPI headers
//! `linux/netlink.h`, `linux/netfilter/nfnetlink.h` and `linux/netfilter/nfnetlink_queue.h`.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::time::{Duration, Instant};

use crate::sys;

const NETLINK_NETFILTER: libc::c_int = 12;
const NLMSG_HDRLEN: usize = 16;
const NLM_F_REQUEST: u16 = 1;
const NLM_F_ACK: u16 = 4;
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;

const NFNL_SUBSYS_QUEUE: u16 = 3;
const NFQNL_MSG_PACKET: u16 = 0;
const NFQNL_MSG_CONFIG: u16 = 2;
const NFQNL_MSG_VERDICT_BATCH: u16 = 3;

const NFQA_PACKET_HDR: u16 = 1;
const NFQA_VERDICT_HDR: u16 = 2;
const NFQA_TIMESTAMP: u16 = 4;
const NFQA_PAYLOAD: u16 = 10;
const NFQA_CAP_LEN: u16 = 13;

const NFQA_CFG_CMD: u16 = 1;
const NFQA_CFG_PARAMS: u16 = 2;
const NFQA_CFG_QUEUE_MAXLEN: u16 = 3;
const NFQA_CFG_MASK: u16 = 4;
const NFQA_CFG_FLAGS: u16 = 5;
const NFQNL_CFG_CMD_BIND: u8 = 1;
const NFQNL_COPY_PACKET: u8 = 2;
/// Queue large (GSO) packets whole instead of cutting them into segments first.
const NFQA_CFG_F_GSO: u32 = 4;

const NF_ACCEPT: u32 = 1;
/// The attribute type's top two bits are flags (nested, network byte order).
const NLA_TYPE_MASK: u16 = 0x3fff;

/// A packet waiting in the queue: its id (increasing in queue order), its length in bytes and,
/// where the kernel gives one, the wall-clock time at which it received the packet (since the
/// Unix epoch, to the microsecond).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queued {
    /// The kernel's packet id, which the verdict names.
    pub id: u32,
    /// The packet's length in bytes, which sets its time on the shaped link.
    pub len: u32,
    /// When the kernel received the packet, since the Unix epoch; `None` where it gives none.
    pub stamp: Option<Duration>,
}

/// One bound queue on a netlink socket of the calling thread's network namespace.
pub struct Queue {
    socket: File,
    number: u16,
    seq: u32,
    buf: Vec<u8>,
}

fn push_attr(msg: &mut Vec<u8>, kind: u16, payload: &[u8]) {
    msg.extend_from_slice(&((4 + payload.len()) as u16).to_ne_bytes());
    msg.extend_from_slice(&kind.to_ne_bytes());
    msg.extend_from_slice(payload);
    while !msg.len().is_multiple_of(4) {
        msg.push(0);
    }
}

/// A netlink message of the queue subsystem: header (its length filled in last), netfilter
/// header, attributes.
fn message(kind: u16, flags: u16, seq: u32, queue: u16, attrs: &[(u16, Vec<u8>)]) -> Vec<u8> {
    let mut msg = Vec::with_capacity(64);
    msg.extend_from_slice(&[0; 4]);
    msg.extend_from_slice(&((NFNL_SUBSYS_QUEUE << 8) | kind).to_ne_bytes());
    msg.extend_from_slice(&flags.to_ne_bytes());
    msg.extend_from_slice(&seq.to_ne_bytes());
    msg.extend_from_slice(&0u32.to_ne_bytes());
    // nfgenmsg: family AF_UNSPEC, version NFNETLINK_V0, queue number (network order).
    msg.extend_from_slice(&[0, 0]);
    msg.extend_from_slice(&queue.to_be_bytes());
    for (kind, payload) in attrs {
        push_attr(&mut msg, *kind, payload);
    }
    let len = msg.len() as u32;
    msg[..4].copy_from_slice(&len.to_ne_bytes());
    msg
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_ne_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn be32_at(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// What one netlink message said.
#[derive(Debug, PartialEq, Eq)]
enum Said {
    Packet(Queued),
    /// An acknowledgement (0) or an error (a negative errno) for request `seq`.
    Ack {
        seq: u32,
        error: i32,
    },
    Other,
}

/// Splits a datagram into netlink messages and reads each.
fn parse(datagram: &[u8], out: &mut Vec<Said>) {
    let mut at = 0;
    while at + NLMSG_HDRLEN <= datagram.len() {
        let len = u32_at(datagram, at) as usize;
        if len < NLMSG_HDRLEN || at + len > datagram.len() {
            break;
        }
        let msg = &datagram[at..at + len];
        let kind = u16_at(msg, 4);
        if kind == NLMSG_ERROR && len >= NLMSG_HDRLEN + 4 + NLMSG_HDRLEN {
            let error = u32_at(msg, NLMSG_HDRLEN) as i32;
            // The error message echoes the request's header: its sequence number is at 8.
            let seq = u32_at(msg, NLMSG_HDRLEN + 4 + 8);
            out.push(Said::Ack { seq, error });
        } else if kind == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET {
            out.push(parse_packet(&msg[NLMSG_HDRLEN..]).map_or(Said::Other, Said::Packet));
        } else if kind != NLMSG_DONE {
            out.push(Said::Other);
        }
        at += (len + 3) & !3;
    }
}

/// Reads a packet message's body (after the netlink header): its id and length.
fn parse_packet(body: &[u8]) -> Option<Queued> {
    let mut at = 4; // nfgenmsg
    let (mut id, mut payload, mut cap, mut stamp) = (None, 0u32, None, None);
    while at + 4 <= body.len() {
        let len = u16_at(body, at) as usize;
        let kind = u16_at(body, at + 2) & NLA_TYPE_MASK;
        if len < 4 || at + len > body.len() {
            break;
        }
        let value = &body[at + 4..at + len];
        match kind {
            NFQA_PACKET_HDR if value.len() >= 4 => id = Some(be32_at(value, 0)),
            NFQA_PAYLOAD => payload = value.len() as u32,
            NFQA_CAP_LEN if value.len() >= 4 => cap = Some(be32_at(value, 0)),
            NFQA_TIMESTAMP if value.len() >= 16 => {
                let secs = u64::from(be32_at(value, 0)) << 32 | u64::from(be32_at(value, 4));
                let micros = u64::from(be32_at(value, 8)) << 32 | u64::from(be32_at(value, 12));
                stamp = Some(Duration::from_secs(secs) + Duration::from_micros(micros));
            }
            _ => {}
        }
        at += (len + 3) & !3;
    }
    // The kernel copies one byte of each packet and gives the full length when it cut more.
    Some(Queued {
        id: id?,
        len: cap.unwrap_or(payload),
        stamp,
    })
}

impl Queue {
    /// Binds queue `number` in the calling thread's network namespace: the kernel sends us each
    /// packet's id and length (one byte of payload), keeps up to `max_len` packets waiting, and
    /// queues large packets whole.
    pub fn bind(number: u16, max_len: u32) -> io::Result<Queue> {
        let fd = sys::netlink_socket(NETLINK_NETFILTER)?;
        // Room for every notice the queue can hold (each under 100 bytes), so that none is lost
        // while the thread sleeps; a lost notice only lengthens its packet's delay, since a
        // batch verdict releases every earlier packet too.
        sys::set_receive_buffer(fd.as_fd(), (max_len as usize * 256).max(4 << 20))?;
        // Without time stamps the delay would count from when the thread hears of a packet.
        sys::enable_timestamps(fd.as_fd())?;
        let mut queue = Queue {
            socket: File::from(fd),
            number,
            seq: 0,
            buf: vec![0; 1 << 16],
        };
        let mut cmd = vec![NFQNL_CFG_CMD_BIND, 0];
        cmd.extend_from_slice(&(libc::AF_INET as u16).to_be_bytes());
        queue.request(&[(NFQA_CFG_CMD, cmd)])?;
        let mut params = 1u32.to_be_bytes().to_vec();
        params.push(NFQNL_COPY_PACKET);
        queue.request(&[
            (NFQA_CFG_PARAMS, params),
            (NFQA_CFG_QUEUE_MAXLEN, max_len.to_be_bytes().to_vec()),
            (NFQA_CFG_FLAGS, NFQA_CFG_F_GSO.to_be_bytes().to_vec()),
            (NFQA_CFG_MASK, NFQA_CFG_F_GSO.to_be_bytes().to_vec()),
        ])?;
        Ok(queue)
    }

    /// Sends a configuration request and waits (up to 2 s) for the kernel's acknowledgement.
    fn request(&mut self, attrs: &[(u16, Vec<u8>)]) -> io::Result<()> {
        self.seq += 1;
        let seq = self.seq;
        let msg = message(
            NFQNL_MSG_CONFIG,
            NLM_F_REQUEST | NLM_F_ACK,
            seq,
            self.number,
            attrs,
        );
        self.socket.write_all(&msg)?;
        let deadline = Instant::now() + Duration::from_secs(2);
        let mut said = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the kernel did not answer the netfilter queue configuration",
                ));
            }
            if !sys::wait_readable(self.socket.as_fd(), left)? {
                continue;
            }
            let n = match self.socket.read(&mut self.buf) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err(e),
            };
            said.clear();
            parse(&self.buf[..n], &mut said);
            for s in &said {
                if let Said::Ack { seq: s, error } = *s {
                    if s == seq {
                        return if error == 0 {
                            Ok(())
                        } else {
                            Err(io::Error::from_raw_os_error(-error))
                        };
                    }
                }
            }
        }
    }

    /// The socket, to wait on.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.socket.as_fd()
    }

    /// Reads every notice waiting on the socket without blocking, appending the packets to
    /// `out`. Returns how many times the socket reported lost notices (ENOBUFS).
    pub fn drain(&mut self, out: &mut Vec<Queued>) -> io::Result<u64> {
        let mut overruns = 0;
        let mut said = Vec::new();
        loop {
            match self.socket.read(&mut self.buf) {
                Ok(0) => return Ok(overruns),
                Ok(n) => {
                    said.clear();
                    parse(&self.buf[..n], &mut said);
                    out.extend(said.iter().filter_map(|s| match s {
                        Said::Packet(p) => Some(*p),
                        _ => None,
                    }));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(overruns),
                Err(e) if e.raw_os_error() == Some(libc::ENOBUFS) => overruns += 1,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Releases every queued packet up to and including `id`, in queue order.
    pub fn accept_through(&mut self, id: u32) -> io::Result<()> {
        let mut verdict = NF_ACCEPT.to_be_bytes().to_vec();
        verdict.extend_from_slice(&id.to_be_bytes());
        self.seq = self.seq.wrapping_add(1);
        let msg = message(
            NFQNL_MSG_VERDICT_BATCH,
            NLM_F_REQUEST,
            self.seq,
            self.number,
            &[(NFQA_VERDICT_HDR, verdict)],
        );
        self.socket.write_all(&msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_have_the_kernel_layout() {
        let msg = message(
            NFQNL_MSG_VERDICT_BATCH,
            NLM_F_REQUEST,
            7,
            0,
            &[(NFQA_VERDICT_HDR, vec![0, 0, 0, 1, 0, 0, 0, 42])],
        );
        assert_eq!(msg.len(), 16 + 4 + 4 + 8);
        assert_eq!(u32_at(&msg, 0) as usize, msg.len());
        assert_eq!(u16_at(&msg, 4), 0x0303);
        assert_eq!(u16_at(&msg, 6), NLM_F_REQUEST);
        assert_eq!(u32_at(&msg, 8), 7);
        assert_eq!(u16_at(&msg, 20), 12);
        assert_eq!(u16_at(&msg, 22), NFQA_VERDICT_HDR);
        assert_eq!(be32_at(&msg, 28), 42);
        // A 5-byte attribute is padded to 8.
        let cfg = message(NFQNL_MSG_CONFIG, 0, 1, 3, &[(NFQA_CFG_PARAMS, vec![0; 5])]);
        assert_eq!(cfg.len(), 20 + 12);
        assert_eq!(&cfg[18..20], &[0, 3]);
    }

    /// A packet notice as the kernel writes it: header, nfgenmsg, packet header, payload,
    /// captured length.
    fn notice(id: u32, payload: &[u8], cap: Option<u32>) -> Vec<u8> {
        let mut hdr = id.to_be_bytes().to_vec();
        hdr.extend_from_slice(&[8, 0, 2]); // hw_protocol, hook
        let mut attrs = vec![(NFQA_PACKET_HDR, hdr), (NFQA_PAYLOAD, payload.to_vec())];
        if let Some(c) = cap {
            attrs.push((NFQA_CAP_LEN, c.to_be_bytes().to_vec()));
        }
        message(NFQNL_MSG_PACKET, 0, 0, 0, &attrs)
    }

    #[test]
    fn notices_and_acks_are_read() {
        let mut datagram = notice(5, &[0x45], Some(1500));
        datagram.extend(notice(6, &[1, 2, 3], None));
        // An error for request 9: header, errno, then the request's header echoed.
        let echoed = message(NFQNL_MSG_CONFIG, 0, 9, 0, &[]);
        let mut err = ((NLMSG_HDRLEN * 2 + 4) as u32).to_ne_bytes().to_vec();
        err.extend_from_slice(&NLMSG_ERROR.to_ne_bytes());
        err.extend_from_slice(&[0; 10]);
        err.extend_from_slice(&(-libc::EPERM).to_ne_bytes());
        err.extend_from_slice(&echoed[..NLMSG_HDRLEN]);
        datagram.extend(err);
        let mut said = Vec::new();
        parse(&datagram, &mut said);
        assert_eq!(
            said,
            vec![
                Said::Packet(Queued {
                    id: 5,
                    len: 1500,
                    stamp: None
                }),
                Said::Packet(Queued {
                    id: 6,
                    len: 3,
                    stamp: None
                }),
                Said::Ack {
                    seq: 9,
                    error: -libc::EPERM
                },
            ]
        );
        // A truncated datagram stops the reading, it does not panic.
        let mut cut = Vec::new();
        parse(&datagram[..datagram.len() - 3], &mut cut);
        assert_eq!(cut.len(), 2);
    }
}
