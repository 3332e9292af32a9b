//! Checks on a parsed GPU: positive and finite numbers, limits that agree with
//! each other, and a `[sources]` entry for every number (and no entry for a
//! field that does not exist). Errors point at the offending key in the file.

use std::collections::BTreeSet;

use crate::error::ArchError;
use crate::gpu::{Gpu, RegisterGranularity};

/// Validate `gpu`, parsed from `text` (file name `file`, used for diagnostics
/// and for the rule that the id equals the file stem).
pub fn validate(gpu: &Gpu, file: &str, text: &str) -> Result<(), ArchError> {
    let fail = |field: &str, message: String| {
        let (line, col) = find_key(text, field);
        Err(ArchError::Invalid {
            file: file.to_string(),
            line,
            col,
            field: field.to_string(),
            message,
        })
    };

    // Identity.
    let id_ok = !gpu.id.is_empty()
        && gpu
            .id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !gpu.id.starts_with('-')
        && !gpu.id.ends_with('-');
    if !id_ok {
        return fail("id", format!("`{}` is not lowercase-hyphenated", gpu.id));
    }
    let stem = std::path::Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned());
    if file.ends_with(".toml") && stem.as_deref() != Some(gpu.id.as_str()) {
        return fail(
            "id",
            format!(
                "`{}` differs from the file name `{}`",
                gpu.id,
                stem.unwrap_or_default()
            ),
        );
    }
    let cc = gpu.compute_capability;
    if !(1..=12).contains(&cc.major) || cc.minor > 9 {
        return fail(
            "compute_capability",
            format!("{cc} is not a known compute capability"),
        );
    }

    // Every number positive and finite, except those that may be 0.
    let may_be_zero = [
        "sm.fp64_lanes",
        "sm.sfu",
        "sm.tensor_cores",
        "caches.l2_bytes",
        "limits.reserved_shared_per_block_bytes",
        "limits.shared_carveouts_kib",
    ];
    for (path, value) in gpu.numeric_fields() {
        let zero_ok = may_be_zero.contains(&path.as_str());
        if !value.is_finite() || value < 0.0 || (value == 0.0 && !zero_ok) {
            return fail(&path, format!("must be a positive number, found {value}"));
        }
    }

    // Limits that must agree.
    let l = &gpu.limits;
    if u64::from(l.max_warps_per_sm) * u64::from(gpu.sm.warp_size)
        != u64::from(l.max_threads_per_sm)
    {
        return fail(
            "limits.max_threads_per_sm",
            format!(
                "{} threads is not max_warps_per_sm ({}) x warp_size ({})",
                l.max_threads_per_sm, l.max_warps_per_sm, gpu.sm.warp_size
            ),
        );
    }
    if l.max_threads_per_block > l.max_threads_per_sm {
        return fail(
            "limits.max_threads_per_block",
            "exceeds max_threads_per_sm".to_string(),
        );
    }
    if l.max_registers_per_block > l.registers_per_sm {
        return fail(
            "limits.max_registers_per_block",
            "exceeds registers_per_sm".to_string(),
        );
    }
    if !l
        .registers_per_sm
        .is_multiple_of(l.register_allocation_unit)
    {
        return fail(
            "limits.register_allocation_unit",
            "does not divide registers_per_sm".to_string(),
        );
    }
    let expected_granularity = if cc.major == 1 {
        RegisterGranularity::Block
    } else {
        RegisterGranularity::Warp
    };
    if l.register_allocation_granularity != expected_granularity {
        return fail(
            "limits.register_allocation_granularity",
            format!("CC {cc} allocates registers per {expected_granularity:?}").to_lowercase(),
        );
    }
    if l.shared_per_block_bytes > l.shared_per_sm_bytes {
        return fail(
            "limits.shared_per_block_bytes",
            "exceeds shared_per_sm_bytes".to_string(),
        );
    }
    if let Some(optin) = l.shared_per_block_optin_bytes
        && (optin < l.shared_per_block_bytes || optin > l.shared_per_sm_bytes)
    {
        return fail(
            "limits.shared_per_block_optin_bytes",
            "must lie between shared_per_block_bytes and shared_per_sm_bytes".to_string(),
        );
    }
    if !l.shared_carveouts_kib.is_empty() {
        let ascending = l.shared_carveouts_kib.windows(2).all(|w| w[0] < w[1]);
        let last = l.shared_carveouts_kib.last().copied().unwrap_or(0);
        if !ascending || u64::from(last) * 1024 != l.shared_per_sm_bytes {
            return fail(
                "limits.shared_carveouts_kib",
                "must ascend and end at shared_per_sm_bytes / 1024".to_string(),
            );
        }
    }
    if !gpu.sm.fp32_lanes.is_multiple_of(gpu.sm.warp_schedulers) {
        return fail(
            "sm.warp_schedulers",
            "does not divide fp32_lanes".to_string(),
        );
    }
    if gpu.clocks.boost_mhz < gpu.clocks.base_mhz {
        return fail("clocks.boost_mhz", "is below base_mhz".to_string());
    }
    if gpu.caches.l1_shared_per_sm_bytes < l.shared_per_sm_bytes {
        return fail(
            "caches.l1_shared_per_sm_bytes",
            "is smaller than limits.shared_per_sm_bytes".to_string(),
        );
    }

    // The host link: a generation the spec defines, a link width, and a
    // usable bandwidth no higher than the raw rate.
    if let Some(p) = &gpu.pcie {
        let Some(raw) = p.raw_gbs() else {
            return fail(
                "pcie.generation",
                format!("{} is not a PCIe generation from 1 to 5", p.generation),
            );
        };
        if ![1, 2, 4, 8, 16, 32].contains(&p.lanes) {
            return fail(
                "pcie.lanes",
                format!("{} is not a PCIe link width (1, 2, 4, 8, 16, 32)", p.lanes),
            );
        }
        if p.mapped_read_gbs > raw {
            return fail(
                "pcie.mapped_read_gbs",
                format!(
                    "{} GB/s exceeds the raw {raw:.2} GB/s of PCIe {}.0 x{}",
                    p.mapped_read_gbs, p.generation, p.lanes
                ),
            );
        }
    }

    // Sources: none for a field that is absent, one for every number.
    let known = field_paths(gpu);
    for (key, source) in &gpu.sources {
        if !known.contains(key) {
            let (line, col) = find_source_key(text, key);
            return Err(ArchError::Invalid {
                file: file.to_string(),
                line,
                col,
                field: format!("sources.{key}"),
                message: "names no field of this GPU".to_string(),
            });
        }
        if source.source.trim().is_empty() {
            return fail(&format!("sources.{key}"), "empty source".to_string());
        }
    }
    for (path, _) in gpu.numeric_fields() {
        if gpu.source_of(&path).is_none() {
            return fail(&path, "has no entry in [sources]".to_string());
        }
    }
    Ok(())
}

/// Every field path and section name present in the GPU (sources excluded).
fn field_paths(gpu: &Gpu) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Ok(toml::Value::Table(t)) = toml::Value::try_from(gpu) {
        for (k, v) in &t {
            if k == "sources" {
                continue;
            }
            out.insert(k.clone());
            if let toml::Value::Table(inner) = v {
                for k2 in inner.keys() {
                    out.insert(format!("{k}.{k2}"));
                }
            }
        }
    }
    out
}

/// 1-based (line, column) of the key at dotted `path` (`section.key` or a
/// top-level `key`), from `toml`'s spans; (1, 1) when there is none.
pub(crate) fn find_key(text: &str, path: &str) -> (usize, usize) {
    let (section, key) = path.rsplit_once('.').unwrap_or(("", path));
    let path: Vec<&str> = section
        .split('.')
        .filter(|s| !s.is_empty())
        .chain([key])
        .collect();
    key_position(text, &path)
}

/// Position of a (quoted) key inside the `[sources]` table.
fn find_source_key(text: &str, key: &str) -> (usize, usize) {
    key_position(text, &["sources", key])
}

fn key_position(text: &str, path: &[&str]) -> (usize, usize) {
    syntax::toml_key_offset(text, path).map_or((1, 1), |o| syntax::line_col(text, o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_key_cases() {
        let text = "id = \"x\"\n[sm]\nfp32_lanes = 64\n[limits]\n  max_warps_per_sm = 64\n";
        let check = |path, want| assert_eq!(find_key(text, path), want);
        check("id", (1, 1));
        check("sm.fp32_lanes", (3, 1));
        check("limits.max_warps_per_sm", (5, 3));
        check("limits.nothing", (1, 1));
    }
}
