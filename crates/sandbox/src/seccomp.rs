//! The system calls a sandboxed program may not make, as the classic BPF
//! program bubblewrap installs (`--seccomp FD`): pushing input into a
//! terminal (`TIOCSTI`, `TIOCLINUX`), which an agent's interactive
//! terminal would run after the sandbox ends, and the kernel's key
//! store (`add_key`, `keyctl`, `request_key`), which the user's sessions
//! outside share. Each is refused with `EPERM`; everything else passes.
//! Written by hand because it is ten instructions per architecture
//! (x86-64 with its 32-bit and x32 forms, AArch64 with its 32-bit form).

/// `struct sock_filter` instruction classes and fields.
const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const JGE_K: u16 = 0x35;
const RET_K: u16 = 0x06;

const RET_ALLOW: u32 = 0x7fff_0000;
/// `SECCOMP_RET_ERRNO | EPERM`.
const RET_EPERM: u32 = 0x0005_0001;

/// Offsets in `struct seccomp_data`: `nr`, `arch`, the low 32 bits of
/// `args[1]` (the kernel reads an ioctl's request as a 32-bit number, so
/// only those bits are compared).
const NR: u32 = 0;
const ARCH: u32 = 4;
const ARG1_LOW: u32 = 24;

const TIOCSTI: u32 = 0x5412;
const TIOCLINUX: u32 = 0x541C;

/// An architecture: its `AUDIT_ARCH_*` and its numbers for `ioctl`,
/// `add_key`, `request_key`, `keyctl`.
struct Arch {
    audit: u32,
    ioctl: u32,
    keys: [u32; 3],
}

const ARCHES: [Arch; 4] = [
    // x86-64
    Arch {
        audit: 0xC000_003E,
        ioctl: 16,
        keys: [248, 249, 250],
    },
    // i386 (32-bit programs on x86-64)
    Arch {
        audit: 0x4000_0003,
        ioctl: 54,
        keys: [286, 287, 288],
    },
    // AArch64
    Arch {
        audit: 0xC000_00B7,
        ioctl: 29,
        keys: [217, 218, 219],
    },
    // 32-bit ARM (on AArch64)
    Arch {
        audit: 0x4000_0028,
        ioctl: 54,
        keys: [309, 310, 311],
    },
];

/// The x32 system calls of x86-64 carry this bit: all refused (no agent
/// needs them, and they are another number for `ioctl`).
const X32_BIT: u32 = 0x4000_0000;

#[derive(Clone, Copy)]
struct Insn {
    code: u16,
    jt: u8,
    jf: u8,
    k: u32,
}

fn stmt(code: u16, k: u32) -> Insn {
    Insn {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> Insn {
    Insn { code, jt, jf, k }
}

/// The program, as bubblewrap reads it from `--seccomp FD`: the
/// instructions in the machine's byte order.
pub fn filter() -> Vec<u8> {
    let mut program = vec![stmt(LD_W_ABS, ARCH)];
    for arch in &ARCHES {
        // Per architecture: its instructions after its check.
        let body = arch_body(arch);
        let skip = u8::try_from(body.len()).unwrap_or(u8::MAX);
        program.push(jump(JEQ_K, arch.audit, 0, skip));
        program.extend(body);
    }
    // An architecture not listed: nothing of it can be judged.
    program.push(stmt(RET_K, RET_EPERM));
    program
        .iter()
        .flat_map(|i| {
            let mut bytes = Vec::with_capacity(8);
            bytes.extend_from_slice(&i.code.to_ne_bytes());
            bytes.push(i.jt);
            bytes.push(i.jf);
            bytes.extend_from_slice(&i.k.to_ne_bytes());
            bytes
        })
        .collect()
}

/// What runs once the architecture matched; ends in a return on every
/// path (the next architecture's check is never reached from here).
fn arch_body(arch: &Arch) -> Vec<Insn> {
    vec![
        stmt(LD_W_ABS, NR),
        // 1: x32 (only x86-64 sets the bit).
        jump(JGE_K, X32_BIT, 9, 0),
        // 2: ioctl: look at its request.
        jump(JEQ_K, arch.ioctl, 0, 4),
        stmt(LD_W_ABS, ARG1_LOW),
        jump(JEQ_K, TIOCSTI, 6, 0),
        jump(JEQ_K, TIOCLINUX, 5, 0),
        stmt(RET_K, RET_ALLOW),
        // 7: the key store.
        jump(JEQ_K, arch.keys[0], 3, 0),
        jump(JEQ_K, arch.keys[1], 2, 0),
        jump(JEQ_K, arch.keys[2], 1, 0),
        stmt(RET_K, RET_ALLOW),
        // 11: refused.
        stmt(RET_K, RET_EPERM),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny interpreter of the instructions this program uses, to check
    /// every path ends where it should.
    fn run(arch: u32, nr: u32, arg1: u64) -> u32 {
        let bytes = filter();
        let program: Vec<Insn> = bytes
            .chunks(8)
            .map(|c| Insn {
                code: u16::from_ne_bytes([c[0], c[1]]),
                jt: c[2],
                jf: c[3],
                k: u32::from_ne_bytes([c[4], c[5], c[6], c[7]]),
            })
            .collect();
        let mut acc = 0u32;
        let mut pc = 0usize;
        loop {
            let i = program[pc];
            match i.code {
                LD_W_ABS => {
                    acc = match i.k {
                        NR => nr,
                        ARCH => arch,
                        ARG1_LOW => (arg1 & 0xffff_ffff) as u32,
                        other => panic!("load of {other}"),
                    };
                    pc += 1;
                }
                JEQ_K => pc += 1 + usize::from(if acc == i.k { i.jt } else { i.jf }),
                JGE_K => pc += 1 + usize::from(if acc >= i.k { i.jt } else { i.jf }),
                RET_K => return i.k,
                other => panic!("instruction {other:#x}"),
            }
        }
    }

    #[test]
    fn terminal_injection_and_the_key_store_are_refused_on_every_architecture() {
        for arch in &ARCHES {
            assert_eq!(run(arch.audit, arch.ioctl, u64::from(TIOCSTI)), RET_EPERM);
            assert_eq!(run(arch.audit, arch.ioctl, u64::from(TIOCLINUX)), RET_EPERM);
            // High bits do not hide the request (the kernel ignores them).
            assert_eq!(
                run(
                    arch.audit,
                    arch.ioctl,
                    0xdead_0000_0000_0000 | u64::from(TIOCSTI)
                ),
                RET_EPERM
            );
            for key in arch.keys {
                assert_eq!(run(arch.audit, key, 0), RET_EPERM);
            }
            // Other ioctls (a terminal's size) and calls pass.
            assert_eq!(run(arch.audit, arch.ioctl, 0x5413), RET_ALLOW);
            assert_eq!(run(arch.audit, 0, 0), RET_ALLOW);
            assert_eq!(run(arch.audit, 59, 0), RET_ALLOW);
        }
        assert_eq!(
            run(0xC000_003E, X32_BIT | 514, u64::from(TIOCSTI)),
            RET_EPERM
        );
        assert_eq!(run(0x1234, 16, 0), RET_EPERM);
    }
}
