//! Figures per compute capability: `gpus/compute-capabilities.toml`.
//!
//! What an architecture's SM does the same on every product it ships in
//! (L1 bytes per clock, load/store lanes, the conversion rate, SASS bytes per
//! instruction, whether L1 caches local memory, the transaction size of the
//! profile's counts, the instruction-fetch curve) lives here rather than in
//! each GPU file, and rather than in model code: the models hold equations,
//! the catalog holds every figure with its source. The catalog attaches the
//! entry of a GPU's compute capability to the GPU when it loads it
//! ([`crate::Gpu::cc_figures`]), so a GPU whose compute capability has no
//! entry does not load.
//!
//! The file has two tables: `[instruction_fetch.NAME]`, measured curves with
//! one source each, and `[cc."MAJOR.MINOR"]`, one entry per compute
//! capability with a `[cc."MAJOR.MINOR".sources]` table that gives every
//! field a `{ status, source }` (the scheme of the GPU files, [`Source`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::ArchError;
use crate::gpu::{ComputeCapability, Source, SourceStatus};

/// The file's name inside the catalog directory; it is not a GPU file.
pub const FILE_NAME: &str = "compute-capabilities.toml";

/// The bundled table's text (the repository's `gpus/compute-capabilities.toml`).
pub const BUNDLED_TEXT: &str = include_str!("../../../gpus/compute-capabilities.toml");

/// One measured instruction-fetch curve: how much slower code issues as it
/// outgrows the SM's instruction caches (docs/timing-model.md, "Instruction
/// fetch").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchCurve {
    /// Warps per SM of the loaded column ([`FetchPoint::warps_clocks`]).
    pub warps: f64,
    /// Code up to this size issues at full rate; it must be one of the
    /// points' sizes, the reference the others are divided by.
    pub full_rate_up_to_bytes: f64,
    /// Measured points, ascending in code size.
    pub points: Vec<FetchPoint>,
    /// Where the curve was measured.
    pub source: Source,
    /// Bytes of the measured GPU's per-SM instruction cache (its L1.5 or L1
    /// instruction cache, the level the curve's loss ends at): a compute
    /// capability with a smaller one reads the curve at its code size times
    /// this over its own ([`CcFigures::fetch_code_scale`]).
    pub instruction_cache_bytes: f64,
    /// The source of [`Self::instruction_cache_bytes`].
    pub instruction_cache_source: Source,
}

/// One code size of a [`FetchCurve`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchPoint {
    /// Bytes of machine code.
    pub code_bytes: f64,
    /// SM clocks per instruction of one warp alone on the SM.
    pub one_warp_clocks: f64,
    /// SM clocks per instruction of each warp with [`FetchCurve::warps`] warps per SM.
    pub warps_clocks: f64,
}

impl FetchPoint {
    /// Instructions the SM issues per clock with `warps` warps: warps / clocks.
    pub fn sm_rate(&self, warps: f64) -> f64 {
        warps / self.warps_clocks
    }
}

impl FetchCurve {
    /// The point of code size `full_rate_up_to_bytes` (validated to exist).
    pub fn full_rate_point(&self) -> Option<&FetchPoint> {
        self.points
            .iter()
            .find(|p| p.code_bytes == self.full_rate_up_to_bytes)
    }
}

/// The figures of one compute capability, as a GPU carries them.
#[derive(Debug, Clone, PartialEq)]
pub struct CcFigures {
    /// The compute capability these figures are for.
    pub compute_capability: ComputeCapability,
    /// L1 data bytes per clock per SM, where no calibration of the GPU gives one.
    pub l1_bytes_per_clock: f64,
    /// Load/store lanes per SM at most (the timing model takes fewer where the
    /// GPU's shared-memory rate says so).
    pub lsu_lanes: u32,
    /// Type conversions per clock per SM.
    pub convert_per_clock: f64,
    /// Bytes of SASS per instruction, control words included.
    pub sass_bytes_per_instruction: f64,
    /// Whether L1 caches local memory (register spills).
    pub l1_caches_local_memory: bool,
    /// Whether plain global loads (`ld.global`, not `.nc`) allocate in L1 by
    /// default; where they do not, they are cached in L2 only (Kepler,
    /// Maxwell, GP10x) and only read-only loads reach the L1 array.
    pub l1_caches_global_loads: bool,
    /// Bytes of one memory transaction of the profile's transaction counts.
    pub transaction_bytes: f64,
    /// The name of the instruction-fetch curve this compute capability uses.
    pub instruction_fetch_name: String,
    /// That curve.
    pub instruction_fetch: FetchCurve,
    /// Bytes of the SM's instruction cache behind the first level (the L1.5
    /// of Kepler to Turing, the L1 of Volta and later), where a source gives
    /// it; `None`: the curve is read at the code's own size.
    pub instruction_cache_bytes: Option<f64>,
    /// A source for every field above, by field name.
    pub sources: BTreeMap<String, Source>,
}

impl CcFigures {
    /// Placeholder figures of a `Gpu` not yet given its entry: NaN numbers
    /// and an empty curve, so that a model handed such a GPU refuses it
    /// rather than predicting with made-up figures.
    pub(crate) fn unresolved() -> Self {
        Self {
            compute_capability: ComputeCapability::new(0, 0),
            l1_bytes_per_clock: f64::NAN,
            lsu_lanes: 0,
            convert_per_clock: f64::NAN,
            sass_bytes_per_instruction: f64::NAN,
            l1_caches_local_memory: false,
            l1_caches_global_loads: false,
            transaction_bytes: f64::NAN,
            instruction_fetch_name: String::new(),
            instruction_fetch: FetchCurve {
                warps: f64::NAN,
                full_rate_up_to_bytes: f64::NAN,
                points: Vec::new(),
                source: Source {
                    status: SourceStatus::Assumption,
                    source: String::new(),
                },
                instruction_cache_bytes: f64::NAN,
                instruction_cache_source: Source {
                    status: SourceStatus::Assumption,
                    source: String::new(),
                },
            },
            instruction_cache_bytes: None,
            sources: BTreeMap::new(),
        }
    }

    /// The source of `field` (one of the entry's field names).
    pub fn source_of(&self, field: &str) -> Option<&Source> {
        self.sources.get(field)
    }

    /// What the code size is multiplied by before the instruction-fetch
    /// curve is read: the curve's GPU's instruction cache over this compute
    /// capability's, so that code filling the same share of each cache is
    /// charged alike; 1 where this entry gives no cache size.
    pub fn fetch_code_scale(&self) -> f64 {
        match self.instruction_cache_bytes {
            Some(own) if own > 0.0 => self.instruction_fetch.instruction_cache_bytes / own,
            _ => 1.0,
        }
    }
}

/// The bundled table, parsed once.
pub fn bundled_table() -> Result<&'static CcTable, ArchError> {
    static TABLE: std::sync::OnceLock<Result<CcTable, ArchError>> = std::sync::OnceLock::new();
    TABLE
        .get_or_init(CcTable::bundled)
        .as_ref()
        .map_err(Clone::clone)
}

/// Every entry of the file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CcTable {
    entries: BTreeMap<ComputeCapability, CcFigures>,
}

/// The file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    instruction_fetch: BTreeMap<String, FetchCurve>,
    cc: BTreeMap<String, RawEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    l1_bytes_per_clock: f64,
    lsu_lanes: u32,
    convert_per_clock: f64,
    sass_bytes_per_instruction: f64,
    l1_caches_local_memory: bool,
    l1_caches_global_loads: bool,
    transaction_bytes: u32,
    instruction_fetch: String,
    #[serde(default)]
    instruction_cache_bytes: Option<u32>,
    sources: BTreeMap<String, Source>,
}

/// The fields of an entry, each of which needs a source.
const FIELDS: [&str; 8] = [
    "l1_bytes_per_clock",
    "lsu_lanes",
    "convert_per_clock",
    "sass_bytes_per_instruction",
    "l1_caches_local_memory",
    "l1_caches_global_loads",
    "transaction_bytes",
    "instruction_fetch",
];

/// Fields an entry may leave out; one it gives needs a source.
const OPTIONAL_FIELDS: [&str; 1] = ["instruction_cache_bytes"];

impl CcTable {
    /// Parse and validate the table; `file` names it in diagnostics.
    pub fn parse(file: &str, text: &str) -> Result<Self, ArchError> {
        let raw: RawFile = toml::from_str(text).map_err(|e| ArchError::toml(file, text, &e))?;
        let fail = |path: &[&str], message: String| {
            let (line, col) =
                syntax::toml_key_offset(text, path).map_or((1, 1), |o| syntax::line_col(text, o));
            ArchError::Invalid {
                file: file.to_string(),
                line,
                col,
                field: path.join("."),
                message,
            }
        };
        for (name, curve) in &raw.instruction_fetch {
            check_curve(curve).map_err(|m| fail(&["instruction_fetch", name], m.to_string()))?;
            check_source(&curve.source)
                .map_err(|m| fail(&["instruction_fetch", name, "source"], m.to_string()))?;
            check_source(&curve.instruction_cache_source).map_err(|m| {
                fail(
                    &["instruction_fetch", name, "instruction_cache_source"],
                    m.to_string(),
                )
            })?;
        }
        let mut entries = BTreeMap::new();
        for (key, e) in raw.cc {
            let cc = ComputeCapability::try_from(key.clone())
                .map_err(|err| fail(&["cc", &key], err.to_string()))?;
            if cc.to_string() != key {
                return Err(fail(&["cc", &key], format!("write it `{cc}`")));
            }
            for (field, value) in [
                ("l1_bytes_per_clock", e.l1_bytes_per_clock),
                ("lsu_lanes", f64::from(e.lsu_lanes)),
                ("convert_per_clock", e.convert_per_clock),
                ("sass_bytes_per_instruction", e.sass_bytes_per_instruction),
                ("transaction_bytes", f64::from(e.transaction_bytes)),
                (
                    "instruction_cache_bytes",
                    e.instruction_cache_bytes.map_or(1.0, f64::from),
                ),
            ] {
                if !(value.is_finite() && value > 0.0) {
                    return Err(fail(
                        &["cc", &key, field],
                        format!("must be a positive number, found {value}"),
                    ));
                }
            }
            let Some(curve) = raw.instruction_fetch.get(&e.instruction_fetch) else {
                return Err(fail(
                    &["cc", &key, "instruction_fetch"],
                    format!("names no [instruction_fetch.{}] table", e.instruction_fetch),
                ));
            };
            for k in e.sources.keys() {
                if !FIELDS.contains(&k.as_str()) && !OPTIONAL_FIELDS.contains(&k.as_str()) {
                    return Err(fail(
                        &["cc", &key, "sources", k],
                        "names no field of a compute capability".to_string(),
                    ));
                }
                if k == "instruction_cache_bytes" && e.instruction_cache_bytes.is_none() {
                    return Err(fail(
                        &["cc", &key, "sources", k],
                        "is the source of a figure the entry does not give".to_string(),
                    ));
                }
            }
            let given = OPTIONAL_FIELDS
                .into_iter()
                .filter(|f| *f != "instruction_cache_bytes" || e.instruction_cache_bytes.is_some());
            for field in FIELDS.into_iter().chain(given) {
                let Some(source) = e.sources.get(field) else {
                    return Err(fail(
                        &["cc", &key, field],
                        "has no entry in its [sources]".to_string(),
                    ));
                };
                check_source(source)
                    .map_err(|m| fail(&["cc", &key, "sources", field], m.to_string()))?;
            }
            entries.insert(
                cc,
                CcFigures {
                    compute_capability: cc,
                    l1_bytes_per_clock: e.l1_bytes_per_clock,
                    lsu_lanes: e.lsu_lanes,
                    convert_per_clock: e.convert_per_clock,
                    sass_bytes_per_instruction: e.sass_bytes_per_instruction,
                    l1_caches_local_memory: e.l1_caches_local_memory,
                    l1_caches_global_loads: e.l1_caches_global_loads,
                    transaction_bytes: f64::from(e.transaction_bytes),
                    instruction_fetch_name: e.instruction_fetch,
                    instruction_fetch: curve.clone(),
                    instruction_cache_bytes: e.instruction_cache_bytes.map(f64::from),
                    sources: e.sources,
                },
            );
        }
        Ok(Self { entries })
    }

    /// The table bundled with the binary.
    pub fn bundled() -> Result<Self, ArchError> {
        Self::parse(&format!("gpus/{FILE_NAME}"), BUNDLED_TEXT)
    }

    /// The figures of `cc`, if the table has an entry.
    pub fn get(&self, cc: ComputeCapability) -> Option<&CcFigures> {
        self.entries.get(&cc)
    }

    /// Every entry, ascending by compute capability.
    pub fn entries(&self) -> impl Iterator<Item = &CcFigures> {
        self.entries.values()
    }

    /// Entries and curves whose source has `status` (the curves' own
    /// sources counted once each, not once per entry that uses them).
    pub fn count_status(&self, status: SourceStatus) -> usize {
        let entries: usize = self
            .entries
            .values()
            .map(|e| e.sources.values().filter(|s| s.status == status).count())
            .sum();
        let mut curves: BTreeMap<&str, &FetchCurve> = BTreeMap::new();
        for e in self.entries.values() {
            curves.insert(&e.instruction_fetch_name, &e.instruction_fetch);
        }
        entries
            + curves
                .values()
                .map(|c| {
                    usize::from(c.source.status == status)
                        + usize::from(c.instruction_cache_source.status == status)
                })
                .sum::<usize>()
    }
}

/// What is wrong with one entry of the table (placed by the caller).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
struct Invalid(String);

/// Positive, finite, strictly ascending points, and the full-rate size among them.
fn check_curve(c: &FetchCurve) -> Result<(), Invalid> {
    if !(c.warps.is_finite() && c.warps > 0.0) {
        return Err(Invalid(format!(
            "warps must be a positive number, found {}",
            c.warps
        )));
    }
    if c.points.len() < 2 {
        return Err(Invalid("needs at least two points".to_string()));
    }
    for p in &c.points {
        for (name, v) in [
            ("code_bytes", p.code_bytes),
            ("one_warp_clocks", p.one_warp_clocks),
            ("warps_clocks", p.warps_clocks),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(Invalid(format!(
                    "{name} must be a positive number, found {v}"
                )));
            }
        }
    }
    if !c
        .points
        .windows(2)
        .all(|w| w[0].code_bytes < w[1].code_bytes)
    {
        return Err(Invalid("points must ascend in code_bytes".to_string()));
    }
    if !(c.instruction_cache_bytes.is_finite() && c.instruction_cache_bytes > 0.0) {
        return Err(Invalid(format!(
            "instruction_cache_bytes must be a positive number, found {}",
            c.instruction_cache_bytes
        )));
    }
    if c.full_rate_point().is_none() {
        return Err(Invalid(format!(
            "full_rate_up_to_bytes ({}) is not the code_bytes of a point",
            c.full_rate_up_to_bytes
        )));
    }
    Ok(())
}

/// A source says something, and an assumption says that it is one.
fn check_source(s: &Source) -> Result<(), Invalid> {
    if s.source.trim().is_empty() {
        return Err(Invalid("empty source".to_string()));
    }
    if s.status == SourceStatus::Assumption && !s.source.starts_with("assumption:") {
        return Err(Invalid(
            "an assumption's source must start with \"assumption:\"".to_string(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CURVE: &str = "[instruction_fetch.x]\nwarps = 16\nfull_rate_up_to_bytes = 2\n\
        points = [{ code_bytes = 1, one_warp_clocks = 1.0, warps_clocks = 4.0 },\n\
                  { code_bytes = 2, one_warp_clocks = 1.0, warps_clocks = 4.0 }]\n\
        source = { status = \"verified\", source = \"s\" }\n\
        instruction_cache_bytes = 8\n\
        instruction_cache_source = { status = \"unverified\", source = \"s\" }\n";

    fn entry(cc: &str, extra: &str) -> String {
        let mut t = format!(
            "{CURVE}[cc.\"{cc}\"]\nl1_bytes_per_clock = 128.0\nlsu_lanes = 32\n\
             convert_per_clock = 16.0\nsass_bytes_per_instruction = 16.0\n\
             l1_caches_local_memory = true\nl1_caches_global_loads = true\ntransaction_bytes = 32\n\
             instruction_fetch = \"x\"\n\
             [cc.\"{cc}\".sources]\n"
        );
        for f in FIELDS {
            t.push_str(&format!(
                "{f} = {{ status = \"verified\", source = \"s\" }}\n"
            ));
        }
        t.push_str(extra);
        t
    }

    fn error(text: &str) -> String {
        match CcTable::parse("cc.toml", text) {
            Ok(_) => "ok".to_string(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_complete_entry_loads() {
        let t = CcTable::parse("cc.toml", &entry("8.0", "")).unwrap_or_default();
        let e = t.get(ComputeCapability::new(8, 0));
        assert_eq!(e.map(|e| e.lsu_lanes), Some(32));
        assert_eq!(e.map(|e| e.instruction_fetch.points.len()), Some(2));
    }

    #[test]
    fn bad_entries_point_at_the_key() {
        let check = |text: String, want: &str| assert_eq!(error(&text), want);
        check(
            entry("8.0", "").replace("lsu_lanes = 32", "lsu_lanes = 0"),
            "cc.toml:11:1: error: cc.8.0.lsu_lanes: must be a positive number, found 0",
        );
        check(
            entry("8", ""),
            "cc.toml:9:5: error: cc.8: compute capability `8` is not of the form MAJOR.MINOR (e.g. \"8.0\")",
        );
        check(
            entry("8.0", "").replace("instruction_fetch = \"x\"", "instruction_fetch = \"y\""),
            "cc.toml:17:1: error: cc.8.0.instruction_fetch: names no [instruction_fetch.y] table",
        );
        check(
            entry("8.0", "").replace("lsu_lanes = { status", "lsu_lane = { status"),
            "cc.toml:20:1: error: cc.8.0.sources.lsu_lane: names no field of a compute capability",
        );
        check(
            entry("8.0", "wide = { status = \"verified\", source = \"s\" }\n"),
            "cc.toml:27:1: error: cc.8.0.sources.wide: names no field of a compute capability",
        );
        check(
            entry("8.0", "").replace(
                "convert_per_clock = { status = \"verified\", source = \"s\" }",
                "convert_per_clock = { status = \"assumption\", source = \"s\" }",
            ),
            "cc.toml:21:1: error: cc.8.0.sources.convert_per_clock: an assumption's source must start with \"assumption:\"",
        );
        check(
            entry("8.0", "").replace("full_rate_up_to_bytes = 2", "full_rate_up_to_bytes = 3"),
            "cc.toml:1:20: error: instruction_fetch.x: full_rate_up_to_bytes (3) is not the code_bytes of a point",
        );
        check(
            entry("8.0", "").replace("l1_caches_local_memory = true\n", ""),
            "cc.toml:9:1: error: missing field `l1_caches_local_memory`",
        );
    }

    #[test]
    fn the_code_size_is_scaled_by_the_ratio_of_instruction_caches() {
        let check = |extra_field: &str, extra_source: &str, want: f64| {
            let text = entry("7.5", extra_source).replace(
                "instruction_fetch = \"x\"\n",
                &format!("instruction_fetch = \"x\"\n{extra_field}"),
            );
            let t = CcTable::parse("cc.toml", &text).unwrap_or_default();
            let scale = t
                .get(ComputeCapability::new(7, 5))
                .map_or(f64::NAN, CcFigures::fetch_code_scale);
            assert_eq!(scale, want, "{extra_field}");
        };
        let source = "instruction_cache_bytes = { status = \"unverified\", source = \"s\" }\n";
        // The curve's GPU has 8 bytes: 2 bytes of cache read the curve at 4x the code.
        check("instruction_cache_bytes = 2\n", source, 4.0);
        check("instruction_cache_bytes = 8\n", source, 1.0);
        check("instruction_cache_bytes = 16\n", source, 0.5);
        // No size: the code's own.
        check("", "", 1.0);
    }

    #[test]
    fn an_instruction_cache_needs_a_size_and_a_source() {
        let check = |text: String, want: &str| assert_eq!(error(&text), want);
        let with = |field: &str, source: &str| {
            entry("7.5", source).replace(
                "instruction_fetch = \"x\"\n",
                &format!("instruction_fetch = \"x\"\n{field}"),
            )
        };
        let source = "instruction_cache_bytes = { status = \"unverified\", source = \"s\" }\n";
        check(
            with("instruction_cache_bytes = 0\n", source),
            "cc.toml:18:1: error: cc.7.5.instruction_cache_bytes: must be a positive number, found 0",
        );
        check(
            with("instruction_cache_bytes = 2\n", ""),
            "cc.toml:18:1: error: cc.7.5.instruction_cache_bytes: has no entry in its [sources]",
        );
        check(
            with("", source),
            "cc.toml:27:1: error: cc.7.5.sources.instruction_cache_bytes: is the source of a figure the entry does not give",
        );
        check(
            entry("7.5", "").replace("instruction_cache_bytes = 8", "instruction_cache_bytes = 0"),
            "cc.toml:1:20: error: instruction_fetch.x: instruction_cache_bytes must be a positive number, found 0",
        );
    }
}
