//! CUDA source lines of PTX instructions, from the `.file` table and the
//! `.loc` directive in effect at each instruction (NVRTC's `-lineinfo`).
//!
//! A side table beside the IR: [`SourceLines::of`] reads the module and
//! never changes it. `.loc` line 0 (code the compiler made up, e.g. a loop
//! preheader) maps to no line, like a position before any `.loc`. With
//! inlining, the `.loc` names the callee's line; that is the line shown
//! (the `inlined_at` call site stays in the IR), except for NVRTC's
//! built-in header, whose lines are given to their call site.

use crate::ir::{Function, Instruction, Module, SourceLoc};

/// A CUDA source position: a file of [`SourceLines::files`] and a 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceLine {
    /// Index into [`SourceLines::files`].
    pub file: u32,
    pub line: u32,
}

/// The CUDA line of every instruction of every function, indexed
/// `[function][instruction]` in arena and instruction order (the emulator's
/// numbering).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceLines {
    /// File names, in the order of the module's `.file` table.
    pub files: Vec<String>,
    funcs: Vec<Vec<Option<SourceLine>>>,
}

impl SourceLines {
    /// The table of `module`.
    pub fn of(module: &Module) -> SourceLines {
        let files: Vec<String> = module.files.iter().map(|f| f.name.clone()).collect();
        let funcs = module
            .functions
            .iter()
            .map(|(_, f)| function_lines(module, f))
            .collect();
        SourceLines { files, funcs }
    }

    /// The CUDA line of instruction `pc` of function `func`.
    pub fn get(&self, func: usize, pc: usize) -> Option<SourceLine> {
        self.funcs.get(func)?.get(pc).copied().flatten()
    }

    /// The file name of `line`.
    pub fn file_name(&self, line: SourceLine) -> &str {
        self.files
            .get(line.file as usize)
            .map_or("", String::as_str)
    }

    /// Lines of one function (empty when out of range).
    pub fn function(&self, func: usize) -> &[Option<SourceLine>] {
        self.funcs.get(func).map_or(&[], Vec::as_slice)
    }

    /// Whether any instruction has a line.
    pub fn is_empty(&self) -> bool {
        self.funcs.iter().flatten().all(Option::is_none)
    }
}

/// The CUDA line of one instruction: its `.loc`, resolved against the
/// module's `.file` table (None without `.loc`, for line 0, or for a file
/// number the table lacks), at [`user_position`].
pub fn source_line(module: &Module, inst: &Instruction) -> Option<SourceLine> {
    let (file, line) = user_position(module, inst.loc.as_ref()?);
    if line == 0 {
        return None;
    }
    let file = module.files.iter().position(|f| f.index == file)?;
    Some(SourceLine {
        file: file as u32,
        line,
    })
}

/// The position (`.file` number, line) a `.loc` stands for: its own, except
/// in code inlined from NVRTC's built-in header (`tex1Dfetch`'s body, say),
/// a file no user can open, which is given its first call site outside
/// that header.
pub fn user_position(module: &Module, loc: &SourceLoc) -> (u32, u32) {
    let builtin = |number: u32| {
        module
            .files
            .iter()
            .find(|f| f.index == number)
            .is_some_and(|f| is_builtin_header(&f.name))
    };
    if builtin(loc.file) {
        loc.call_chain()
            .find(|&(f, _)| !builtin(f))
            .unwrap_or((loc.file, loc.line))
    } else {
        (loc.file, loc.line)
    }
}

/// NVRTC's built-in header, which its `-lineinfo` names for the bodies of
/// built-in functions it inlines.
fn is_builtin_header(name: &str) -> bool {
    name.rsplit(['/', '\\']).next() == Some("__nv_nvrtc_builtin_header.h")
}

fn function_lines(module: &Module, f: &Function) -> Vec<Option<SourceLine>> {
    f.instructions
        .iter()
        .map(|(_, inst)| source_line(module, inst))
        .collect()
}
