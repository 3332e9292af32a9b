//! `ptxperf gpus`: the catalog as a table, one GPU with the status and
//! source of every number, the occupancy of a launch with each limit's
//! arithmetic; their JSON.

use std::fmt::Write as _;

use arch::{
    Catalog, Gpu, KernelResources, Occupancy, OccupancyInput, RegisterGranularity, RegisterSource,
    SourceStatus,
};
use comfy_table::Table;
use serde_json::{Value, json};

fn table(header: Vec<&str>, width: u16) -> Table {
    let mut t = crate::table::new(width);
    t.set_header(header);
    crate::table::wrap_last_column_only(&mut t);
    t
}

fn bytes(b: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if b == 0 {
        "-".to_string()
    } else if b.is_multiple_of(MIB) {
        format!("{} MB", b / MIB)
    } else if b >= MIB {
        format!("{:.2} MB", b as f64 / MIB as f64)
    } else {
        format!("{} KB", b / 1024)
    }
}

/// How many of a GPU's numbers, and of its compute capability's figures
/// (`compute-capabilities.toml`), each status sources: (verified,
/// unverified, assumption). A number without a source counts nowhere (the
/// loader refuses one).
pub fn status_counts(gpu: &Gpu) -> (usize, usize, usize) {
    let mut counts = (0, 0, 0);
    let mut add = |status: SourceStatus| match status {
        SourceStatus::Verified => counts.0 += 1,
        SourceStatus::Unverified => counts.1 += 1,
        SourceStatus::Assumption => counts.2 += 1,
    };
    for (path, _) in gpu.numeric_fields() {
        if let Some(s) = gpu.source_of(&path) {
            add(s.status);
        }
    }
    for s in gpu.cc_figures.sources.values() {
        add(s.status);
    }
    counts
}

/// The catalog as JSON (`{"schema":1,"gpus":[...]}`).
pub fn list_json(catalog: &Catalog) -> Value {
    json!({ "schema": 1, "gpus": catalog.gpus() })
}

/// The catalog as a table.
pub fn list_text(catalog: &Catalog, width: u16) -> String {
    // Short headers, explained below the table, and no wrapping: the table
    // is 96 characters at its natural width, and a number split over lines
    // would be misread on a narrower terminal. The name is in `gpus ID`
    // and the JSON.
    let mut table = table(
        vec![
            "id", "CC", "SMs", "lanes", "MHz", "GB/s", "L2", "warps", "assumed",
        ],
        u16::MAX,
    );
    for g in catalog.gpus() {
        table.add_row(vec![
            g.id.clone(),
            g.compute_capability.to_string(),
            g.sm_count.to_string(),
            g.sm.fp32_lanes.to_string(),
            format!("{}", g.clock_mhz()),
            format!("{}", g.memory.bandwidth_gbs),
            bytes(g.caches.l2_bytes),
            g.limits.max_warps_per_sm.to_string(),
            status_counts(g).2.to_string(),
        ]);
    }
    let legend = format!(
        "{} GPUs. lanes: FP32 lanes per SM; MHz: the clock the models use; GB/s: DRAM \
         bandwidth; warps: resident warps per SM at most; assumed: how many of its numbers (and \
         of its compute capability's figures) are assumptions rather than sourced. \
         `ptxperf gpus ID` shows one in full with the source of every number.",
        catalog.len()
    );
    format!("{table}\n{}\n", crate::table::wrap(&legend, width))
}

/// One GPU in full: every number with its status and source.
pub fn gpu_text(gpu: &Gpu, width: u16) -> String {
    let mut out = String::new();
    let clock = match gpu.clocks.sustained_mhz {
        Some(_) => "sustained".to_string(),
        None => gpu.clocks.model_clock.to_string(),
    };
    let _ = writeln!(out, "{} ({})", gpu.name, gpu.id);
    let _ = writeln!(
        out,
        "{} {}, compute capability {} ({}); models use the {} clock, {} MHz",
        gpu.architecture,
        gpu.chip,
        gpu.compute_capability,
        gpu.compute_capability.sm_name(),
        clock,
        gpu.clock_mhz()
    );
    let _ = writeln!(
        out,
        "peak FP32 {:.1} GFLOP/s, FP64 {:.1} GFLOP/s, DRAM {} GB/s ({:.1} B/cycle), issue {} cycles/warp instruction",
        gpu.peak_fp32_flops() / 1e9,
        gpu.peak_fp64_flops() / 1e9,
        gpu.memory.bandwidth_gbs,
        gpu.dram_bytes_per_cycle(),
        gpu.issue_cycles()
    );
    let (verified, unverified, assumed) = status_counts(gpu);
    let assumptions = if assumed == 1 {
        "assumption"
    } else {
        "assumptions"
    };
    let _ = writeln!(
        out,
        "sources of its numbers and of its compute capability's figures: {verified} verified, \
         {unverified} unverified, {assumed} {assumptions}"
    );
    let mut table = table(vec!["field", "value", "status", "source"], width);
    for (path, value) in gpu.numeric_fields() {
        let (status, source) = gpu
            .source_of(&path)
            .map_or(("?".to_string(), String::new()), |s| {
                (s.status.to_string(), s.source.clone())
            });
        let shown = if path == "limits.shared_carveouts_kib" {
            format!("{:?}", gpu.limits.shared_carveouts_kib)
        } else {
            format!("{value}")
        };
        table.add_row(vec![path, shown, status, source]);
    }
    // The compute capability's figures (gpus/compute-capabilities.toml),
    // which the models read beside the GPU's own numbers.
    for (field, shown) in cc_figure_values(&gpu.cc_figures) {
        let (status, source) = gpu
            .cc_figures
            .source_of(field)
            .map_or(("?".to_string(), String::new()), |s| {
                (s.status.to_string(), s.source.clone())
            });
        table.add_row(vec![format!("cc.{field}"), shown, status, source]);
    }
    let _ = writeln!(out, "{table}");
    out
}

/// The figures of a compute capability as shown, by field name (the names
/// of its `[sources]`), in the file's order; the optional ones where given.
fn cc_figure_values(cc: &arch::CcFigures) -> Vec<(&'static str, String)> {
    let mut v = vec![
        ("l1_bytes_per_clock", format!("{}", cc.l1_bytes_per_clock)),
        ("lsu_lanes", cc.lsu_lanes.to_string()),
        ("convert_per_clock", format!("{}", cc.convert_per_clock)),
        (
            "sass_bytes_per_instruction",
            format!("{:.3}", cc.sass_bytes_per_instruction),
        ),
        (
            "l1_caches_local_memory",
            cc.l1_caches_local_memory.to_string(),
        ),
        (
            "l1_caches_global_loads",
            cc.l1_caches_global_loads.to_string(),
        ),
        ("transaction_bytes", format!("{}", cc.transaction_bytes)),
        ("instruction_fetch", cc.instruction_fetch_name.clone()),
    ];
    if let Some(b) = cc.instruction_cache_bytes {
        v.push(("instruction_cache_bytes", format!("{b}")));
    }
    v
}

/// The occupancy of a launch as JSON (schema 1).
pub fn occupancy_json(gpu: &Gpu, input: &OccupancyInput, o: &Occupancy) -> Value {
    json!({ "schema": 1, "gpu": gpu.id, "input": input, "occupancy": o })
}

/// The occupancy of a launch, each limit with its arithmetic.
pub fn occupancy_text(gpu: &Gpu, input: &OccupancyInput, o: &Occupancy, width: u16) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} (CC {}): {} threads/block, {} registers/thread, {} B shared/block",
        gpu.id,
        gpu.compute_capability,
        input.threads_per_block,
        input.registers_per_thread,
        input.shared_per_block_bytes
    );
    let mut table = table(vec!["limit", "blocks/SM", "detail"], width);
    let l = &gpu.limits;
    table.add_row(vec![
        "warps".to_string(),
        o.blocks_by_warps.to_string(),
        format!(
            "{} warps/SM / {} warps/block",
            l.max_warps_per_sm, o.warps_per_block
        ),
    ]);
    table.add_row(vec![
        "blocks".to_string(),
        o.blocks_by_blocks.to_string(),
        format!("{} blocks/SM", l.max_blocks_per_sm),
    ]);
    table.add_row(vec![
        "registers".to_string(),
        o.blocks_by_registers.to_string(),
        format!(
            "{} registers/block allocated of {}/SM (unit {} per {})",
            o.registers_per_block,
            l.registers_per_sm,
            l.register_allocation_unit,
            match l.register_allocation_granularity {
                RegisterGranularity::Warp => "warp",
                RegisterGranularity::Block => "block",
            }
        ),
    ]);
    table.add_row(vec![
        "shared memory".to_string(),
        o.blocks_by_shared.to_string(),
        format!(
            "{} B/block allocated ({} B reserved, unit {}) of {} B/SM",
            o.shared_per_block_bytes,
            l.reserved_shared_per_block_bytes,
            l.shared_allocation_unit,
            l.shared_per_sm_bytes
        ),
    ]);
    let _ = writeln!(out, "{table}");
    let limiters: Vec<&str> = o.limiters.iter().map(|l| l.name()).collect();
    let _ = writeln!(
        out,
        "active: {} blocks, {} warps, {} threads per SM; occupancy {:.1} %; limited by {}",
        o.active_blocks_per_sm,
        o.active_warps_per_sm,
        o.active_threads_per_sm,
        o.occupancy * 100.0,
        limiters.join(" and ")
    );
    if let Some(c) = o.carveout_bytes {
        let _ = writeln!(
            out,
            "shared-memory carve-out the driver would choose: {} KB",
            c / 1024
        );
    }
    out
}

/// Where `--ptx`'s registers and static shared memory came from.
pub fn ptxas_note(k: &KernelResources) -> String {
    format!(
        "registers and static shared memory of `{}`: {} ({} registers, {} B static shared, {} B stack)\n",
        k.name,
        RegisterSource::Ptxas,
        k.registers,
        k.shared_bytes,
        k.stack_frame_bytes
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::PIPE_WIDTH;

    fn catalog() -> Catalog {
        Catalog::bundled().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn bytes_cases() {
        let check = |b, want: &str| assert_eq!(bytes(b), want);
        check(0, "-");
        check(768 * 1024, "768 KB");
        check(40 * 1024 * 1024, "40 MB");
        check(2816 * 1024, "2.75 MB");
    }

    #[test]
    fn list_has_one_row_per_gpu() {
        let c = catalog();
        let text = list_text(&c, PIPE_WIDTH);
        for g in c.gpus() {
            assert!(text.contains(&format!("│ {} ", g.id)), "{}", g.id);
        }
        let v = list_json(&c);
        assert_eq!(v["schema"], 1);
        assert_eq!(v["gpus"].as_array().map(Vec::len), Some(c.len()));
    }

    #[test]
    fn status_counts_cover_every_number_and_figure() {
        let c = catalog();
        for g in c.gpus() {
            let (v, u, a) = status_counts(g);
            assert_eq!(
                v + u + a,
                g.numeric_fields().len() + g.cc_figures.sources.len(),
                "{}",
                g.id
            );
        }
        // The H100 SXM5's own numbers are sourced; its CC 9.0 figures have
        // no assumption either. The RTX 5090 assumes its memory latencies.
        let h100 = c.get("h100-sxm5-80gb").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(status_counts(h100).2, 0);
        let b = c.get("geforce-rtx-5090").unwrap_or_else(|e| panic!("{e}"));
        assert!(status_counts(b).2 >= 4, "{:?}", status_counts(b));
    }

    /// Each GPU's numbers stay whole on the first line of its row, at the
    /// pipe's width and a narrow terminal's.
    #[test]
    fn list_keeps_the_numbers_whole() {
        let c = catalog();
        for width in [PIPE_WIDTH, 80] {
            let text = list_text(&c, width);
            for g in c.gpus() {
                let row = text
                    .lines()
                    .find(|l| l.starts_with(&format!("│ {} ", g.id)))
                    .unwrap_or_else(|| panic!("{}: no row at width {width}", g.id));
                let cells: Vec<&str> = row
                    .split('┆')
                    .map(|c| c.trim().trim_matches('│').trim())
                    .collect();
                let want = [
                    g.sm_count.to_string(),
                    g.sm.fp32_lanes.to_string(),
                    g.limits.max_warps_per_sm.to_string(),
                    status_counts(g).2.to_string(),
                ];
                for w in want {
                    assert!(cells.contains(&w.as_str()), "{} at {width}: {row}", g.id);
                }
            }
        }
    }

    #[test]
    fn one_gpu_shows_every_number_with_its_source() {
        let c = catalog();
        for g in c.gpus() {
            let text = gpu_text(g, PIPE_WIDTH);
            for (path, _) in g.numeric_fields() {
                assert!(text.contains(&path), "{}: {path}", g.id);
            }
            for field in g.cc_figures.sources.keys() {
                assert!(
                    text.contains(&format!("cc.{field}")),
                    "{}: cc.{field}",
                    g.id
                );
            }
            assert!(!text.contains("┆ ?"), "{}: a number without a source", g.id);
        }
    }

    #[test]
    fn occupancy_names_the_limiter() {
        let c = catalog();
        let check = |id: &str, threads, regs, smem, want: &str| {
            let g = c.get(id).unwrap_or_else(|e| panic!("{e}"));
            let input = OccupancyInput {
                threads_per_block: threads,
                registers_per_thread: regs,
                shared_per_block_bytes: smem,
            };
            let o = arch::occupancy(g, &input).unwrap_or_else(|e| panic!("{e}"));
            let text = occupancy_text(g, &input, &o, PIPE_WIDTH);
            assert!(text.contains(want), "{text}");
        };
        check(
            "tesla-t4",
            256,
            32,
            0,
            "4 blocks, 32 warps, 1024 threads per SM; occupancy 100.0 %; limited by warps",
        );
        check("a100-pcie-40gb", 128, 24, 40000, "limited by shared memory");
        check(
            "a100-pcie-40gb",
            128,
            24,
            40000,
            "carve-out the driver would choose: 164 KB",
        );
        let g = c.get("tesla-t4").unwrap_or_else(|e| panic!("{e}"));
        let bad = OccupancyInput {
            threads_per_block: 2048,
            registers_per_thread: 0,
            shared_per_block_bytes: 0,
        };
        assert!(arch::occupancy(g, &bad).is_err());
    }
}
