//! Kernel faults: what went wrong, and exactly where (CTA, thread, PTX
//! file:line, instruction text). A fault is a value returned by the launch,
//! never a panic.

use std::fmt;

use crate::mem::MemFault;
use crate::simt::Mask;
use crate::simt::barrier::BarrierError;

/// The class of a fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// Out-of-bounds, misaligned or read-only access.
    Memory(MemFault),
    /// A barrier reached by only part of a warp's live threads (IPDOM policy).
    DivergentBarrier {
        barrier: u32,
        active: Mask,
        live: Mask,
    },
    /// Every remaining warp of the CTA waits and no barrier can complete.
    Deadlock {
        barrier: u32,
        arrived: u32,
        expected: u32,
    },
    /// A barrier used with a bad id or inconsistent thread counts.
    Barrier(BarrierError),
    Trap,
    Breakpoint,
    /// The warp exceeded its instruction budget.
    FuelExhausted {
        budget: u64,
    },
    CallStackOverflow {
        depth: u32,
    },
    /// An instruction or form the emulator does not execute.
    Unsupported(String),
    /// A texture fetch through a handle that is no texture object of the
    /// launch, or in a type its texels cannot be read as.
    Texture(String),
    /// The launch itself is wrong (missing argument, unknown kernel, ...).
    Launch(String),
    /// The emulator contradicts itself (a register outside its frame, ...):
    /// a bug of the emulator, reported instead of computing with a zero.
    Internal(String),
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Memory(m) => write!(f, "{m}"),
            Self::DivergentBarrier {
                barrier,
                active,
                live,
            } => write!(
                f,
                "divergent barrier {barrier}: only lanes {active:#010x} of the warp's live lanes {live:#010x} reached it"
            ),
            Self::Deadlock {
                barrier,
                arrived,
                expected,
            } => write!(
                f,
                "barrier deadlock: every warp waits, barrier {barrier} has {arrived} of {expected} threads"
            ),
            Self::Barrier(e) => write!(f, "{e}"),
            Self::Trap => write!(
                f,
                "trap: the kernel aborted itself (`__trap()`, or a check inside a library: \
                 cooperative_groups' `this_grid().sync()` traps without a cooperative launch, \
                 which ptxperf does not emulate)"
            ),
            Self::Breakpoint => write!(f, "breakpoint (brkpt)"),
            Self::FuelExhausted { budget } => {
                write!(
                    f,
                    "instruction budget of {budget} warp instructions exhausted (runaway kernel?)"
                )
            }
            Self::CallStackOverflow { depth } => write!(f, "call stack overflow at depth {depth}"),
            Self::Unsupported(what) => write!(f, "unsupported: {what}"),
            Self::Texture(what) => write!(f, "{what}"),
            Self::Launch(what) => write!(f, "{what}"),
            Self::Internal(what) => write!(f, "internal emulator error: {what}"),
        }
    }
}

/// The PTX instruction where a fault happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultSite {
    /// The PTX file and line.
    pub file: String,
    pub line: u32,
    pub function: String,
    pub instruction: String,
    /// The CUDA source line, when the PTX has line info (`.loc`).
    pub cuda: Option<CudaSite>,
}

/// A CUDA source line of a fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CudaSite {
    /// The file as the PTX's `.file` names it.
    pub file: String,
    pub line: u32,
    /// The line's text, when the caller that knows the source fills it in
    /// ([`Fault::with_source_text`]).
    pub text: Option<String>,
}

/// A fault with its location: the first faulting lane of the warp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub cta: [u32; 3],
    pub thread: [u32; 3],
    pub warp: u32,
    pub lane: u32,
    pub site: Option<FaultSite>,
}

impl Fault {
    /// Fill in the text of the fault's CUDA line from `lookup(file, line)`.
    pub fn with_source_text(mut self, lookup: impl Fn(&str, u32) -> Option<String>) -> Self {
        if let Some(c) = self.site.as_mut().and_then(|s| s.cuda.as_mut()) {
            c.text = lookup(&c.file, c.line);
        }
        self
    }

    /// A fault not tied to a thread (launch errors).
    pub fn launch(message: impl Into<String>) -> Self {
        Self {
            kind: FaultKind::Launch(message.into()),
            cta: [0; 3],
            thread: [0; 3],
            warp: 0,
            lane: 0,
            site: None,
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let FaultKind::Launch(m) = &self.kind {
            return write!(f, "launch error: {m}");
        }
        let [cx, cy, cz] = self.cta;
        let [tx, ty, tz] = self.thread;
        // With line info the CUDA line leads and the PTX line follows the
        // instruction; without it the PTX line leads.
        let cuda = self.site.as_ref().and_then(|s| s.cuda.as_ref());
        match (&self.site, cuda) {
            (_, Some(c)) => write!(f, "{}:{}: error: ", c.file, c.line)?,
            (Some(s), None) => write!(f, "{}:{}: error: ", s.file, s.line)?,
            (None, None) => write!(f, "error: ")?,
        }
        write!(
            f,
            "kernel fault in CTA ({cx},{cy},{cz}) thread ({tx},{ty},{tz}) [warp {}, lane {}]",
            self.warp, self.lane
        )?;
        if let Some(s) = &self.site {
            write!(f, " in {}: `{}`", s.function, s.instruction)?;
            if cuda.is_some() {
                write!(f, " ({}:{})", s.file, s.line)?;
            }
        }
        write!(f, ": {}", self.kind)?;
        if let Some(text) = cuda.and_then(|c| c.text.as_deref()) {
            write!(
                f,
                "\n{:>6} | {}",
                cuda.map_or(0, |c| c.line),
                text.trim_end()
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for Fault {}
