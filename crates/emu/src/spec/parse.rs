//! The walk over the spanned TOML tree that builds a [`LaunchSpec`].

use std::ops::Range;
use std::path::Path;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::expr;
use super::init::Init;
use super::types::{Number, ScalarType};
use super::{
    AddressMode, ArgSpec, BufferSpec, ConstantSpec, DefineValue, FilterMode, LaunchSpec,
    SourceKind, SpecError, StructField, StructSpec, TextureView,
};

/// Keys of an experiment file (`validate::Experiment`) that a launch spec
/// does not have: one of them in a launch spec means the file was given to
/// the wrong command.
const EXPERIMENT_KEYS: &[&str] = &[
    "problem_size",
    "grid_div",
    "block_size_names",
    "restrictions",
    "replace",
    "header",
    "include_dirs",
];

type Value<'i> = Spanned<DeValue<'i>>;

/// Largest buffer a spec may ask for (bytes): beyond this, a typo is likelier than intent.
const MAX_BUFFER_BYTES: u64 = 1 << 34;
/// Threads per CTA allowed by every GPU since compute capability 2.0.
const MAX_BLOCK_THREADS: u64 = 1024;

/// The keys only a `type = "texture"` argument takes.
const TEXTURE_KEYS: &[&str] = &[
    "texel",
    "read",
    "dims",
    "address",
    "filter",
    "normalized_coords",
];

/// Parse a launch spec. `path` is the spec file (used for messages and to
/// resolve relative paths); `overrides` are `--set NAME=VALUE` pairs, applied
/// to `defines` before anything is evaluated.
pub fn parse(
    text: &str,
    path: &Path,
    overrides: &[(String, String)],
) -> Result<LaunchSpec, SpecError> {
    parse_with(text, path, overrides, Limits::Checked)
}

/// What to add to a TOML syntax error when `path` names a kernel source
/// (a common slip: `predict k.ptx` where `predict k.toml` was meant): the
/// TOML parser's own message says nothing of the mix-up.
fn kernel_source_hint(path: &Path) -> &'static str {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "ptx" => {
            "; this is PTX, not a launch spec: a launch spec is a TOML file that names \
             the source, the kernel and its launch (docs/launch-spec.md); \
             `ptxperf check FILE.ptx` checks a PTX file"
        }
        "cu" | "cuh" | "cl" | "opencl" => {
            "; this is a kernel source, not a launch spec: a launch spec is a TOML file \
             that names the source, the kernel and its launch (docs/launch-spec.md); \
             `ptxperf compile FILE.cu` compiles CUDA C++ to PTX"
        }
        _ => "",
    }
}

/// Whether [`parse_with`] holds the block and grid to what any GPU allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limits {
    /// At most 1024 threads per block, a grid within [2^31-1, 65535, 65535]
    /// (what [`parse`] does).
    Checked,
    /// No limit beyond 32-bit dimensions: the caller checks the launch
    /// against a GPU's own limits (a tuner reports a block too large for a
    /// GPU as not launchable there, not as a broken spec).
    Unchecked,
}

/// [`parse`], with the block and grid limits of `limits`.
pub fn parse_with(
    text: &str,
    path: &Path,
    overrides: &[(String, String)],
    limits: Limits,
) -> Result<LaunchSpec, SpecError> {
    let file = path.display().to_string();
    let mut cx = Ctx {
        text,
        file,
        defines: Vec::new(),
    };
    let root = DeTable::parse(text).map_err(|e| {
        let hint = kernel_source_hint(path);
        cx.error(
            e.span().unwrap_or(0..0),
            &format!("{}{hint}", e.message().trim()),
        )
    })?;
    let root_span = root.span();
    let table = root.into_inner();
    let dir = path.parent().unwrap_or(Path::new(""));

    const KEYS: &[&str] = &[
        "source",
        "kernel",
        "defines",
        "arch",
        "grid",
        "block",
        "dynamic_shared",
        "arg",
        "constant",
        "fuel",
    ];
    cx.check_keys(&table, KEYS, "launch spec")?;

    cx.read_defines(table.get("defines"), overrides)?;

    let source_v = cx.required(&table, "source", root_span.clone())?;
    let source_s = cx.string(source_v)?;
    let source_kind = if source_s.ends_with(".cu") || source_s.ends_with(".cuh") {
        SourceKind::Cuda
    } else if source_s.ends_with(".ptx") {
        SourceKind::Ptx
    } else {
        return Err(cx.error(source_v.span(), "source must end in .cu or .ptx"));
    };
    let kernel_v = cx.required(&table, "kernel", root_span.clone())?;
    let kernel = cx.string(kernel_v)?;
    if kernel.is_empty() {
        return Err(cx.error(kernel_v.span(), "kernel name is empty"));
    }
    let arch = table.get("arch").map(|v| cx.string(v)).transpose()?;
    let grid = cx.dims(cx.required(&table, "grid", root_span.clone())?, "grid")?;
    let block_v = cx.required(&table, "block", root_span.clone())?;
    let block = cx.dims(block_v, "block")?;
    let threads: u64 = block.iter().map(|&d| d as u64).product();
    if limits == Limits::Checked && threads > MAX_BLOCK_THREADS {
        return Err(cx.error(
            block_v.span(),
            &format!("block has {threads} threads; at most {MAX_BLOCK_THREADS}"),
        ));
    }
    if limits == Limits::Checked
        && (grid[1] > 65535 || grid[2] > 65535 || grid[0] > i32::MAX as u32)
    {
        let v = cx.required(&table, "grid", root_span.clone())?;
        return Err(cx.error(v.span(), "grid exceeds the limits [2^31-1, 65535, 65535]"));
    }
    let dynamic_shared = match table.get("dynamic_shared") {
        Some(v) => cx.ranged(v, 0, u32::MAX as i64)? as u32,
        None => 0,
    };
    let fuel = table
        .get("fuel")
        .map(|v| cx.ranged(v, 1, i64::MAX).map(|f| f as u64))
        .transpose()?;

    let mut args = Vec::new();
    if let Some(v) = table.get("arg") {
        for item in cx.array(v)? {
            let arg = cx.arg(item, dir)?;
            if args.iter().any(|a: &ArgSpec| a.name() == arg.name()) {
                return Err(cx.error(
                    item.span(),
                    &format!("argument `{}` is given twice", arg.name()),
                ));
            }
            args.push(arg);
        }
    }
    let mut constants = Vec::new();
    if let Some(v) = table.get("constant") {
        for item in cx.array(v)? {
            let c = cx.constant(item, dir)?;
            if constants.iter().any(|o: &ConstantSpec| o.name == c.name) {
                return Err(cx.error(
                    item.span(),
                    &format!("constant `{}` is given twice", c.name),
                ));
            }
            constants.push(c);
        }
    }

    Ok(LaunchSpec {
        path: path.to_path_buf(),
        source: dir.join(source_s),
        source_kind,
        kernel,
        defines: cx.defines,
        arch,
        grid,
        block,
        dynamic_shared,
        args,
        constants,
        fuel,
    })
}

struct Ctx<'t> {
    text: &'t str,
    file: String,
    defines: Vec<(String, DefineValue)>,
}

impl Ctx<'_> {
    fn error(&self, span: Range<usize>, message: &str) -> SpecError {
        let (line, col) = syntax::line_col(self.text, span.start);
        SpecError {
            file: self.file.clone(),
            line,
            col,
            message: message.to_string(),
        }
    }

    fn check_keys(
        &self,
        table: &DeTable<'_>,
        allowed: &[&str],
        what: &str,
    ) -> Result<(), SpecError> {
        for key in table.keys() {
            if !allowed.contains(&key.get_ref().as_ref()) {
                // An experiment file (Kernel Tuner's launch: problem_size,
                // grid_div, ...) given where a launch spec goes is a common
                // slip; say what reads it.
                let hint = if what == "launch spec"
                    && EXPERIMENT_KEYS.contains(&key.get_ref().as_ref())
                {
                    "; this looks like an experiment file (Kernel Tuner's launch, docs/experiments.md): \
                     `ptxperf validate` reads it, and `ptxperf tune --experiment FILE`"
                } else {
                    ""
                };
                return Err(self.error(
                    key.span(),
                    &format!(
                        "unknown key `{}` in {what} (expected one of: {}){hint}",
                        key.get_ref(),
                        allowed.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    fn required<'a, 'i>(
        &self,
        table: &'a DeTable<'i>,
        key: &str,
        at: Range<usize>,
    ) -> Result<&'a Value<'i>, SpecError> {
        table
            .get(key)
            .ok_or_else(|| self.error(at, &format!("missing key `{key}`")))
    }

    /// The string key `key` of `t`, one of `options` (`default` where it is
    /// absent), and where it is written (the table's span where absent).
    fn choice<T: Copy>(
        &self,
        t: &DeTable<'_>,
        key: &str,
        default: T,
        options: &[(&str, T)],
    ) -> Result<(T, Range<usize>), SpecError> {
        let Some(v) = t.get(key) else {
            return Ok((default, 0..0));
        };
        let text = self.string(v)?;
        match options.iter().find(|(name, _)| *name == text) {
            Some((_, value)) => Ok((*value, v.span())),
            None => {
                let names: Vec<String> = options.iter().map(|(n, _)| format!("\"{n}\"")).collect();
                let expected = match names.split_last() {
                    Some((last, [])) => last.clone(),
                    Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                    None => String::new(),
                };
                Err(self.error(
                    v.span(),
                    &format!("unknown {key} `{text}` (expected {expected})"),
                ))
            }
        }
    }

    /// An error at the first of `keys` that `t` has: the message names it.
    fn refuse_keys(
        &self,
        t: &DeTable<'_>,
        keys: &[&str],
        message: impl Fn(&str) -> String,
    ) -> Result<(), SpecError> {
        match keys.iter().find_map(|k| t.get(*k).map(|v| (*k, v))) {
            Some((key, v)) => Err(self.error(v.span(), &message(key))),
            None => Ok(()),
        }
    }

    fn string(&self, v: &Value<'_>) -> Result<String, SpecError> {
        match v.get_ref() {
            DeValue::String(s) => Ok(s.to_string()),
            other => Err(self.error(
                v.span(),
                &format!("expected a string, found {}", other.type_str()),
            )),
        }
    }

    fn boolean(&self, v: &Value<'_>) -> Result<bool, SpecError> {
        match v.get_ref() {
            DeValue::Boolean(b) => Ok(*b),
            other => Err(self.error(
                v.span(),
                &format!("expected true or false, found {}", other.type_str()),
            )),
        }
    }

    fn array<'a, 'i>(&self, v: &'a Value<'i>) -> Result<&'a [Value<'i>], SpecError> {
        match v.get_ref() {
            DeValue::Array(a) => Ok(a),
            other => Err(self.error(
                v.span(),
                &format!("expected an array, found {}", other.type_str()),
            )),
        }
    }

    fn table<'a, 'i>(&self, v: &'a Value<'i>) -> Result<&'a DeTable<'i>, SpecError> {
        match v.get_ref() {
            DeValue::Table(t) => Ok(t),
            other => Err(self.error(
                v.span(),
                &format!("expected a table, found {}", other.type_str()),
            )),
        }
    }

    fn lookup(&self, name: &str) -> Option<i64> {
        self.defines
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| match v {
                DefineValue::Int(i) => Some(*i),
                DefineValue::Text(_) => None,
            })
    }

    /// An integer: a TOML integer or a string holding an expression over defines.
    fn integer(&self, v: &Value<'_>) -> Result<i64, SpecError> {
        match v.get_ref() {
            DeValue::Integer(i) => parse_toml_int(i.as_str(), i.radix()).ok_or_else(|| {
                self.error(
                    v.span(),
                    &format!("integer `{}` is out of range", i.as_str()),
                )
            }),
            DeValue::String(s) => expr::eval(s, &|n| self.lookup(n)).map_err(|e| {
                // +1 skips the opening quote; exact for strings without escapes.
                let at = v.span().start + 1 + e.offset;
                self.error(at..at, &e.message)
            }),
            other => Err(self.error(
                v.span(),
                &format!(
                    "expected an integer or an expression, found {}",
                    other.type_str()
                ),
            )),
        }
    }

    fn ranged(&self, v: &Value<'_>, lo: i64, hi: i64) -> Result<i64, SpecError> {
        let i = self.integer(v)?;
        if i < lo || i > hi {
            return Err(self.error(v.span(), &format!("{i} is out of range [{lo}, {hi}]")));
        }
        Ok(i)
    }

    /// A number: integer, float, or an integer expression.
    fn number(&self, v: &Value<'_>) -> Result<Number, SpecError> {
        match v.get_ref() {
            DeValue::Float(f) => {
                let s: String = f.as_str().chars().filter(|&c| c != '_').collect();
                s.parse::<f64>()
                    .map(Number::Float)
                    .map_err(|_| self.error(v.span(), &format!("`{}` is not a number", f.as_str())))
            }
            _ => self.integer(v).map(Number::Int),
        }
    }

    fn dims(&self, v: &Value<'_>, what: &str) -> Result<[u32; 3], SpecError> {
        let items = self.array(v)?;
        if items.is_empty() || items.len() > 3 {
            return Err(self.error(
                v.span(),
                &format!("{what} needs 1 to 3 entries, found {}", items.len()),
            ));
        }
        let mut dims = [1u32; 3];
        for (d, item) in dims.iter_mut().zip(items) {
            *d = self.ranged(item, 1, u32::MAX as i64)? as u32;
        }
        Ok(dims)
    }

    fn read_defines(
        &mut self,
        v: Option<&Value<'_>>,
        overrides: &[(String, String)],
    ) -> Result<(), SpecError> {
        // (name, expression text still to evaluate); integers go straight in.
        let mut pending: Vec<(String, String)> = Vec::new();
        if let Some(v) = v {
            for (key, value) in self.table(v)? {
                let name = key.get_ref().to_string();
                match value.get_ref() {
                    DeValue::Integer(_) => {
                        let i = self.integer(value)?;
                        self.defines.push((name, DefineValue::Int(i)));
                    }
                    DeValue::Float(f) => self
                        .defines
                        .push((name, DefineValue::Text(f.as_str().to_string()))),
                    DeValue::Boolean(b) => self.defines.push((name, DefineValue::Int(*b as i64))),
                    DeValue::String(s) => pending.push((name, s.to_string())),
                    other => {
                        return Err(self.error(
                            value.span(),
                            &format!(
                                "a define must be a number or a string, found {}",
                                other.type_str()
                            ),
                        ));
                    }
                }
            }
        }
        for (name, value) in overrides {
            self.defines.retain(|(n, _)| n != name);
            pending.retain(|(n, _)| n != name);
            pending.push((name.clone(), value.clone()));
        }
        // Defines may refer to each other in any order: evaluate until no progress.
        loop {
            let mut progress = false;
            let mut i = 0;
            while i < pending.len() {
                if let Ok(v) = expr::eval(&pending[i].1, &|n| self.lookup(n)) {
                    let (name, _) = pending.remove(i);
                    self.defines.push((name, DefineValue::Int(v)));
                    progress = true;
                } else {
                    i += 1;
                }
            }
            if !progress {
                break;
            }
        }
        // What is not an integer expression is passed on as text (e.g. `1.5f`).
        for (name, text) in pending {
            self.defines.push((name, DefineValue::Text(text)));
        }
        self.defines.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(())
    }

    fn type_of(&self, v: &Value<'_>) -> Result<(ScalarType, bool), SpecError> {
        let s = self.string(v)?;
        let (base, pointer) = match s.strip_suffix('*') {
            Some(b) => (b.trim_end(), true),
            None => (s.as_str(), false),
        };
        let names: Vec<&str> = ScalarType::ALL.iter().map(|t| t.name()).collect();
        ScalarType::parse(base)
            .map(|t| (t, pointer))
            .ok_or_else(|| {
                self.error(
                    v.span(),
                    &format!(
                        "unknown type `{s}` (expected one of {}, or a pointer `T*`)",
                        names.join(" ")
                    ),
                )
            })
    }

    fn init(&self, v: Option<&Value<'_>>, dir: &Path) -> Result<Init, SpecError> {
        let Some(v) = v else { return Ok(Init::Zeros) };
        if let DeValue::String(s) = v.get_ref() {
            return match s.as_ref() {
                "zeros" => Ok(Init::Zeros),
                "iota" => Ok(Init::Iota),
                other => Err(self.error(
                    v.span(),
                    &format!("unknown init `{other}` (expected \"zeros\", \"iota\", {{ fill }}, {{ random }} or {{ file }})"),
                )),
            };
        }
        let t = self.table(v)?;
        let mut entries = t.iter();
        let (Some((key, value)), None) = (entries.next(), entries.next()) else {
            return Err(self.error(
                v.span(),
                "init table needs exactly one of fill, random, file",
            ));
        };
        match key.get_ref().as_ref() {
            "fill" => Ok(Init::Fill(self.number(value)?)),
            "file" => Ok(Init::File(dir.join(self.string(value)?))),
            "random" => {
                let r = self.table(value)?;
                self.check_keys(r, &["seed", "lo", "hi"], "random init")?;
                let seed = match r.get("seed") {
                    Some(s) => self.ranged(s, 0, i64::MAX)? as u64,
                    None => 0,
                };
                let lo = r
                    .get("lo")
                    .map(|x| self.number(x))
                    .transpose()?
                    .unwrap_or(Number::Float(0.0));
                let hi = r
                    .get("hi")
                    .map(|x| self.number(x))
                    .transpose()?
                    .unwrap_or(Number::Float(1.0));
                Ok(Init::Random { seed, lo, hi })
            }
            other => Err(self.error(
                key.span(),
                &format!("unknown init `{other}` (expected fill, random or file)"),
            )),
        }
    }

    fn len(&self, t: &DeTable<'_>, elem: ScalarType, at: Range<usize>) -> Result<u64, SpecError> {
        let len_v = self.required(t, "len", at)?;
        let len = self.ranged(len_v, 0, i64::MAX)? as u64;
        if len.saturating_mul(elem.size() as u64) > MAX_BUFFER_BYTES {
            return Err(self.error(
                len_v.span(),
                &format!("{len} elements of {elem} exceed {MAX_BUFFER_BYTES} bytes"),
            ));
        }
        Ok(len)
    }

    fn arg(&self, item: &Value<'_>, dir: &Path) -> Result<ArgSpec, SpecError> {
        let t = self.table(item)?;
        self.check_keys(
            t,
            &[
                "name",
                "type",
                "value",
                "len",
                "init",
                "order_dependent",
                "host_mapped",
                "fields",
                "align",
            ]
            .iter()
            .chain(TEXTURE_KEYS)
            .copied()
            .collect::<Vec<_>>(),
            "[[arg]]",
        )?;
        let name = self.string(self.required(t, "name", item.span())?)?;
        let type_v = self.required(t, "type", item.span())?;
        if self.string(type_v)? == "struct" {
            return self
                .struct_arg(t, name, item.span(), dir)
                .map(ArgSpec::Struct);
        }
        self.refuse_keys(t, &["fields", "align"], |key| {
            format!("only a `type = \"struct\"` argument takes {key}")
        })?;
        let kind = self.string(type_v)?;
        if kind == "texture" || kind == "surface" {
            return self
                .texture_arg(t, name, item.span(), dir, kind == "surface")
                .map(ArgSpec::Buffer);
        }
        self.refuse_keys(t, TEXTURE_KEYS, |key| {
            format!("only a `type = \"texture\"` or `\"surface\"` argument takes {key}")
        })?;
        let (ty, pointer) = self.type_of(type_v)?;
        if pointer {
            if let Some(v) = t.get("value") {
                return Err(
                    self.error(v.span(), "a pointer argument takes len and init, not value")
                );
            }
            let len = self.len(t, ty, item.span())?;
            let init = self.init(t.get("init"), dir)?;
            let order_dependent = match t.get("order_dependent") {
                Some(v) => self.boolean(v)?,
                None => false,
            };
            let host_mapped = match t.get("host_mapped") {
                Some(v) => self.boolean(v)?,
                None => false,
            };
            return Ok(ArgSpec::Buffer(BufferSpec {
                name,
                elem: ty,
                len,
                init,
                order_dependent,
                host_mapped,
                texture: None,
            }));
        }
        self.refuse_keys(
            t,
            &["len", "init", "order_dependent", "host_mapped"],
            |key| format!("a scalar argument takes value, not {key}"),
        )?;
        let value_v = self.required(t, "value", item.span())?;
        let value = self.number(value_v)?;
        // Check the value fits the type now, so the error points at it.
        ty.encode(value, &mut Vec::new())
            .map_err(|m| self.error(value_v.span(), &m.to_string()))?;
        Ok(ArgSpec::Scalar { name, ty, value })
    }

    /// A texture object: `texel = "f32"` (or `"u8x4"`, `"f32x2"` ...), `len`
    /// texels or `dims = [W, H(, D)]`, `init` per channel, `read`,
    /// `address`, `filter` and `normalized_coords` as `cudaTextureDesc`.
    /// A surface object (`surface`) takes the first four.
    fn texture_arg(
        &self,
        t: &DeTable<'_>,
        name: String,
        at: Range<usize>,
        dir: &Path,
        surface: bool,
    ) -> Result<BufferSpec, SpecError> {
        if surface {
            self.refuse_keys(
                t,
                &["read", "address", "filter", "normalized_coords"],
                |key| format!("a surface argument takes texel, len or dims and init, not {key} (a surface reads bytes as they are; `surf2Dread` names its boundary mode)"),
            )?;
        }
        let takes = if surface {
            "a surface argument takes texel, len or dims and init"
        } else {
            "a texture argument takes texel, len or dims, init, read, address, filter and normalized_coords"
        };
        self.refuse_keys(t, &["value", "order_dependent", "host_mapped"], |key| {
            format!("{takes}, not {key}")
        })?;
        let texel_v = self.required(t, "texel", at.clone())?;
        let texel = self.string(texel_v)?;
        let (base, channels) = match texel.split_once('x') {
            Some((b, n)) => (b, n.parse::<u8>().ok()),
            None => (texel.as_str(), Some(1)),
        };
        let (elem, channels) = ScalarType::parse(base)
            .filter(|e| TextureView::CHANNEL_TYPES.contains(e))
            .zip(channels.filter(|c| matches!(c, 1 | 2 | 4)))
            .ok_or_else(|| {
                let names: Vec<&str> = TextureView::CHANNEL_TYPES
                    .iter()
                    .map(|t| t.name())
                    .collect();
                self.error(
                    texel_v.span(),
                    &format!(
                        "unknown texel `{texel}` (expected a channel type, {}, alone or with x2 or x4: \"f32\", \"u8x4\")",
                        names.join(" ")
                    ),
                )
            })?;
        let (normalized, read_at) = self.choice(
            t,
            "read",
            false,
            &[("element", false), ("normalized", true)],
        )?;
        if normalized && (elem.size() > 2 || elem.is_float()) {
            return Err(self.error(
                read_at,
                &format!("read = \"normalized\" needs 8- or 16-bit integer channels, not {elem} (CUDA reads other formats as they are)"),
            ));
        }
        let (dims, rank, shape_v) = match (t.get("len"), t.get("dims")) {
            (Some(_), Some(d)) => {
                return Err(self.error(d.span(), "a texture takes len (1D) or dims, not both"));
            }
            (None, None) => {
                return Err(self.error(
                    at,
                    "a texture needs len (texels, 1D) or dims = [W, H] or [W, H, D]",
                ));
            }
            (Some(l), None) => ([self.ranged(l, 0, i64::MAX)? as u64, 1, 1], 1, l),
            (None, Some(d)) => {
                let items = self.array(d)?;
                if !(1..=3).contains(&items.len()) {
                    return Err(self.error(
                        d.span(),
                        "dims has 1 to 3 entries: [W], [W, H] or [W, H, D]",
                    ));
                }
                let mut dims = [1u64; 3];
                for (k, v) in items.iter().enumerate() {
                    dims[k] = self.ranged(v, 1, i64::MAX)? as u64;
                }
                (dims, items.len() as u8, d)
            }
        };
        let texels = dims.iter().fold(1u64, |a, &d| a.saturating_mul(d));
        let len = texels.saturating_mul(channels as u64);
        if len.saturating_mul(elem.size() as u64) > MAX_BUFFER_BYTES {
            return Err(self.error(
                shape_v.span(),
                &format!("{texels} texels of {texel} exceed {MAX_BUFFER_BYTES} bytes"),
            ));
        }
        let normalized_coords = match t.get("normalized_coords") {
            Some(v) => self.boolean(v)?,
            None => false,
        };
        let (address, address_at) = self.choice(
            t,
            "address",
            AddressMode::Border,
            &[
                ("border", AddressMode::Border),
                ("clamp", AddressMode::Clamp),
                ("wrap", AddressMode::Wrap),
                ("mirror", AddressMode::Mirror),
            ],
        )?;
        if matches!(address, AddressMode::Wrap | AddressMode::Mirror) && !normalized_coords {
            return Err(self.error(
                address_at,
                "address = \"wrap\" and \"mirror\" need normalized_coords = true, as in CUDA",
            ));
        }
        let (filter, filter_at) = self.choice(
            t,
            "filter",
            FilterMode::Point,
            &[("point", FilterMode::Point), ("linear", FilterMode::Linear)],
        )?;
        if filter == FilterMode::Linear && !(elem.is_float() || normalized) {
            return Err(self.error(
                filter_at,
                &format!("filter = \"linear\" needs texels read as floats: {elem} channels need read = \"normalized\" (8- and 16-bit) or a float format, as in CUDA"),
            ));
        }
        Ok(BufferSpec {
            name,
            elem,
            len,
            init: self.init(t.get("init"), dir)?,
            order_dependent: false,
            host_mapped: false,
            texture: Some(TextureView {
                channels,
                normalized,
                dims,
                rank,
                address,
                filter,
                normalized_coords,
                surface,
            }),
        })
    }

    /// A struct passed by value: `fields = [{ type = "f32", value = 1.5 },
    /// { name = "x", type = "f32*", len = 64, init = "iota" }, ...]`,
    /// `align` optional.
    fn struct_arg(
        &self,
        t: &DeTable<'_>,
        name: String,
        at: Range<usize>,
        dir: &Path,
    ) -> Result<StructSpec, SpecError> {
        self.refuse_keys(
            t,
            &["value", "len", "init", "order_dependent", "host_mapped"],
            |key| format!("a struct argument takes fields (and align), not {key}"),
        )?;
        let fields_v = self.required(t, "fields", at)?;
        let items = self.array(fields_v)?;
        if items.is_empty() {
            return Err(self.error(fields_v.span(), "a struct needs at least one field"));
        }
        let mut fields = Vec::with_capacity(items.len());
        let mut names: Vec<String> = Vec::new();
        for f in items {
            let ft = self.table(f)?;
            let type_v = self.required(ft, "type", f.span())?;
            let (ty, pointer) = self.type_of(type_v)?;
            if pointer {
                self.check_keys(ft, &["name", "type", "len", "init"], "struct pointer field")?;
                let field = self.string(self.required(ft, "name", f.span())?)?;
                if names.contains(&field) {
                    return Err(self.error(
                        f.span(),
                        &format!("struct `{name}` has two pointer fields named `{field}`"),
                    ));
                }
                names.push(field.clone());
                fields.push(StructField::Pointer(BufferSpec {
                    name: format!("{name}.{field}"),
                    elem: ty,
                    len: self.len(ft, ty, f.span())?,
                    init: self.init(ft.get("init"), dir)?,
                    order_dependent: false,
                    host_mapped: false,
                    texture: None,
                }));
                continue;
            }
            self.check_keys(ft, &["name", "type", "value"], "struct field")?;
            let value_v = self.required(ft, "value", f.span())?;
            let value = self.number(value_v)?;
            ty.encode(value, &mut Vec::new())
                .map_err(|m| self.error(value_v.span(), &m.to_string()))?;
            fields.push(StructField::Scalar(ty, value));
        }
        let natural = StructSpec::scalar_align(&fields);
        let align = match t.get("align") {
            None => None,
            Some(v) => {
                let a = self.ranged(v, 1, 4096)? as u64;
                if !a.is_power_of_two() || a < natural {
                    return Err(self.error(
                        v.span(),
                        &format!(
                            "align must be a power of two no less than the largest field ({natural} bytes), found {a}"
                        ),
                    ));
                }
                Some(a)
            }
        };
        Ok(StructSpec {
            name,
            fields,
            align,
        })
    }

    fn constant(&self, item: &Value<'_>, dir: &Path) -> Result<ConstantSpec, SpecError> {
        let t = self.table(item)?;
        self.check_keys(t, &["name", "type", "len", "init"], "[[constant]]")?;
        let name = self.string(self.required(t, "name", item.span())?)?;
        let type_v = self.required(t, "type", item.span())?;
        let (elem, pointer) = self.type_of(type_v)?;
        if pointer {
            return Err(self.error(
                type_v.span(),
                "a constant symbol has an element type, not a pointer",
            ));
        }
        let len = if t.contains_key("len") {
            self.len(t, elem, item.span())?
        } else {
            1
        };
        let init = self.init(t.get("init"), dir)?;
        Ok(ConstantSpec {
            name,
            elem,
            len,
            init,
        })
    }
}

fn parse_toml_int(s: &str, radix: u32) -> Option<i64> {
    let digits: String = s.chars().filter(|&c| c != '_').collect();
    i64::from_str_radix(&digits, radix).ok()
}
