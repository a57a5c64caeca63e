//! A connection handed from the relay inside the namespace to the proxy
//! outside: the relay sends the accepted socket itself over its Unix
//! connection (`SCM_RIGHTS`), with what it was accepted on, and the proxy
//! serves it directly. One hop, not two: the bytes of a download go from
//! the server's socket to the client's through a pipe in the kernel.

use std::io::{self, IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, OwnedFd};

use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags, recvmsg, sendmsg,
};

/// The first byte a relay's control connection sends: no HTTP request
/// starts with it.
pub(crate) const HELLO: u8 = 0;

/// What a handed connection was accepted on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Accepted {
    /// The proxy's port: the client speaks HTTP to a proxy.
    Proxy,
    /// A forwarded loopback port: the client meant this machine's.
    Forward(u16),
}

impl Accepted {
    fn encode(self) -> [u8; 3] {
        match self {
            Self::Proxy => [0, 0, 0],
            Self::Forward(port) => {
                let [hi, lo] = port.to_be_bytes();
                [1, hi, lo]
            }
        }
    }

    fn decode(bytes: [u8; 3]) -> Option<Self> {
        match bytes {
            [0, 0, 0] => Some(Self::Proxy),
            [1, hi, lo] => {
                Some(Self::Forward(u16::from_be_bytes([hi, lo]))).filter(|a| *a != Self::Forward(0))
            }
            _ => None,
        }
    }
}

/// Sends `socket`, accepted on `how`, over `control`.
pub(crate) fn send(control: impl AsFd, socket: impl AsFd, how: Accepted) -> io::Result<()> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut ancillary = SendAncillaryBuffer::new(&mut space);
    let fds = [socket.as_fd()];
    if !ancillary.push(SendAncillaryMessage::ScmRights(&fds)) {
        return Err(io::Error::other("no room for the socket"));
    }
    let header = how.encode();
    let sent = sendmsg(
        control,
        &[IoSlice::new(&header)],
        &mut ancillary,
        SendFlags::NOSIGNAL,
    )?;
    if sent == header.len() {
        Ok(())
    } else {
        Err(io::ErrorKind::WriteZero.into())
    }
}

/// The next socket handed over `control`; `None` when it closed.
pub(crate) fn receive(control: impl AsFd) -> io::Result<Option<(OwnedFd, Accepted)>> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut ancillary = RecvAncillaryBuffer::new(&mut space);
    let mut header = [0u8; 3];
    let got = recvmsg(
        &control,
        &mut [IoSliceMut::new(&mut header)],
        &mut ancillary,
        RecvFlags::CMSG_CLOEXEC | RecvFlags::WAITALL,
    )?;
    let mut handed = None;
    for message in ancillary.drain() {
        if let RecvAncillaryMessage::ScmRights(fds) = message {
            // One socket per message; any more are closed as they drop.
            for fd in fds {
                handed.get_or_insert(fd);
            }
        }
    }
    if got.bytes == 0 {
        return Ok(None);
    }
    match (handed, Accepted::decode(header)) {
        (Some(fd), Some(how)) if got.bytes == header.len() => Ok(Some((fd, how))),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not a handed socket",
        )),
    }
}
