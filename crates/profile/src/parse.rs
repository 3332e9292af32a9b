//! Reading a hand-written profile from TOML, and checking the numbers.

use crate::kernel_profile::{ClassMix, KernelProfile, Traffic};

/// Why a profile could not be read or used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProfileError {
    /// The TOML text is malformed or does not fit the profile's shape.
    #[error("{line}:{col}: {message}")]
    Parse {
        /// 1-based line of the offending text.
        line: usize,
        /// 1-based column (in characters) of the offending text.
        col: usize,
        /// What is wrong.
        message: String,
    },
    /// A field holds a number the models cannot use.
    #[error("{field}: {message}")]
    Invalid {
        /// Dotted path of the field, e.g. `global.loads.bytes`.
        field: String,
        /// What is wrong.
        message: String,
    },
}

impl KernelProfile {
    /// Parse a profile written in TOML and validate it. Errors carry the
    /// `line:col` of the offending text (`1:1` when the parser gives no position).
    pub fn from_toml(text: &str) -> Result<Self, ProfileError> {
        let profile: KernelProfile = toml::from_str(text).map_err(|e| {
            let (line, col) = e.span().map_or((1, 1), |s| syntax::line_col(text, s.start));
            ProfileError::Parse {
                line,
                col,
                message: e.message().trim().to_string(),
            }
        })?;
        profile.validate()?;
        Ok(profile)
    }

    /// Check that the launch is non-empty and every number is finite and non-negative.
    pub fn validate(&self) -> Result<(), ProfileError> {
        if self.launch.grid.contains(&0) {
            return Err(invalid("launch.grid", "every dimension must be at least 1"));
        }
        if self.launch.block.contains(&0) {
            return Err(invalid(
                "launch.block",
                "every dimension must be at least 1",
            ));
        }
        for (field, value) in self.numbers() {
            if !value.is_finite() {
                return Err(invalid(&field, "must be a finite number"));
            }
            if value < 0.0 {
                return Err(invalid(&field, "must not be negative"));
            }
        }
        Ok(())
    }

    /// True when the profile states nothing but its name, description,
    /// launch and resources: no instruction, traffic, barrier, analysis,
    /// workload or cache figure. Every section defaults to zeros, so the
    /// models would see an empty kernel and predict the launch overhead
    /// alone; a front end warns, since that is most often an empty or wrong
    /// file rather than an intent (a misspelt section or field is already
    /// an error: every section denies unknown fields).
    pub fn states_no_work(&self) -> bool {
        let bare = KernelProfile {
            launch: self.launch.clone(),
            resources: self.resources,
            ..KernelProfile::default()
        };
        let mut unnamed = self.clone();
        unnamed.kernel.clear();
        unnamed.description.clear();
        unnamed == bare
    }

    /// Every floating-point field with its dotted path (absent options are skipped).
    fn numbers(&self) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        push_mix(&mut out, "warp_instructions", &self.warp_instructions);
        push_mix(&mut out, "thread_instructions", &self.thread_instructions);
        push_mix(&mut out, "per_thread.max", &self.per_thread.max);
        push_mix(&mut out, "per_thread.mean", &self.per_thread.mean);
        let g = &self.global;
        push_traffic(&mut out, "global.loads", &g.loads);
        push_traffic(&mut out, "global.stores", &g.stores);
        push_traffic(&mut out, "shared.loads", &self.shared.loads);
        push_traffic(&mut out, "shared.stores", &self.shared.stores);
        push_traffic(&mut out, "local.loads", &self.local.loads);
        push_traffic(&mut out, "local.stores", &self.local.stores);
        let a = &self.analysis;
        let plain = [
            (
                "global.coalesced_instructions",
                Some(g.coalesced_instructions),
            ),
            (
                "global.uncoalesced_instructions",
                Some(g.uncoalesced_instructions),
            ),
            (
                "global.coalesced_transactions",
                Some(g.coalesced_transactions),
            ),
            (
                "global.uncoalesced_transactions",
                Some(g.uncoalesced_transactions),
            ),
            ("global.dram_bytes", g.dram_bytes),
            ("global.l2_bytes", g.l2_bytes),
            ("global.host_mapped_read_bytes", g.host_mapped_read_bytes),
            (
                "global.host_mapped_written_bytes",
                g.host_mapped_written_bytes,
            ),
            (
                "shared.max_conflict_ways",
                Some(self.shared.max_conflict_ways),
            ),
            (
                "sync.barriers_per_thread",
                Some(self.sync.barriers_per_thread),
            ),
            (
                "sync.barrier_instructions",
                Some(self.sync.barrier_instructions),
            ),
            (
                "atomics.global_instructions",
                Some(self.atomics.global_instructions),
            ),
            (
                "atomics.shared_instructions",
                Some(self.atomics.shared_instructions),
            ),
            (
                "atomics.thread_operations",
                Some(self.atomics.thread_operations),
            ),
            (
                "atomics.mean_conflict_ways",
                Some(self.atomics.mean_conflict_ways),
            ),
            ("branches.branches", Some(self.branches.branches)),
            ("branches.divergent", Some(self.branches.divergent)),
            ("analysis.kothapalli.comp_cycles", a.kothapalli.comp_cycles),
            (
                "analysis.kothapalli.memory_cycles",
                a.kothapalli.memory_cycles,
            ),
            ("analysis.mwp_cwp.comp_insts", a.mwp_cwp.comp_insts),
            ("analysis.mwp_cwp.coal_mem_insts", a.mwp_cwp.coal_mem_insts),
            (
                "analysis.mwp_cwp.uncoal_mem_insts",
                a.mwp_cwp.uncoal_mem_insts,
            ),
            ("analysis.mwp_cwp.synch_insts", a.mwp_cwp.synch_insts),
            ("analysis.mwp_cwp.coal_per_mw", a.mwp_cwp.coal_per_mw),
            ("analysis.mwp_cwp.uncoal_per_mw", a.mwp_cwp.uncoal_per_mw),
            (
                "analysis.mwp_cwp.load_bytes_per_warp",
                a.mwp_cwp.load_bytes_per_warp,
            ),
            (
                "analysis.mwp_cwp.active_blocks_per_sm",
                a.mwp_cwp.active_blocks_per_sm,
            ),
            ("analysis.gpuperf.ilp", a.gpuperf.ilp),
            ("analysis.gpuperf.mlp", a.gpuperf.mlp),
            ("analysis.gpuperf.miss_ratio", a.gpuperf.miss_ratio),
            ("analysis.gpuperf.hit_latency", a.gpuperf.hit_latency),
            ("analysis.gpuperf.cf_div_cycles", a.gpuperf.cf_div_cycles),
            ("analysis.gpuperf.bank_cycles", a.gpuperf.bank_cycles),
            ("analysis.roofline.flops", a.roofline.flops),
            ("analysis.parallelism.ilp", a.parallelism.ilp),
            ("analysis.parallelism.mlp_global", a.parallelism.mlp_global),
            ("analysis.parallelism.mlp_shared", a.parallelism.mlp_shared),
            ("tensor.f16", Some(self.tensor.f16)),
            ("tensor.f16_f32", Some(self.tensor.f16_f32)),
            ("tensor.tf32", Some(self.tensor.tf32)),
            ("tensor.int8", Some(self.tensor.int8)),
            ("tensor.fp64", Some(self.tensor.fp64)),
            ("tensor.instructions", Some(self.tensor.instructions)),
        ];
        out.extend(
            plain
                .into_iter()
                .filter_map(|(name, v)| v.map(|v| (name.to_string(), v))),
        );
        out.extend(self.workload.numbers());
        out.extend(self.cache.numbers());
        out
    }
}

fn invalid(field: &str, message: &str) -> ProfileError {
    ProfileError::Invalid {
        field: field.to_string(),
        message: message.to_string(),
    }
}

fn push_mix(out: &mut Vec<(String, f64)>, prefix: &str, mix: &ClassMix) {
    out.extend(
        mix.fields()
            .into_iter()
            .map(|(name, v)| (format!("{prefix}.{name}"), v)),
    );
}

fn push_traffic(out: &mut Vec<(String, f64)>, prefix: &str, t: &Traffic) {
    out.push((format!("{prefix}.requests"), t.requests));
    out.push((format!("{prefix}.transactions"), t.transactions));
    out.push((format!("{prefix}.bytes"), t.bytes));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parse `text` and compare the outcome with `expected`: `Ok(check)` runs
    /// `check` on the profile, `Err(msg)` requires the error to display as `msg`.
    fn check(text: &str, expected: Result<fn(&KernelProfile) -> bool, &str>) {
        match (KernelProfile::from_toml(text), expected) {
            (Ok(p), Ok(f)) => assert!(f(&p), "profile did not pass its check: {p:?}"),
            (Err(e), Err(msg)) => assert_eq!(e.to_string(), msg),
            (got, want) => panic!("for {text:?}: got {got:?}, wanted {}", want.is_ok()),
        }
    }

    #[test]
    fn empty_text_gives_defaults() {
        check(
            "",
            Ok(|p| p.launch.blocks() == 1 && p.warp_instructions.total() == 0.0),
        );
    }

    #[test]
    fn a_profile_of_launch_and_resources_alone_states_no_work() {
        let read = |text: &str| match KernelProfile::from_toml(text) {
            Ok(p) => p.states_no_work(),
            Err(e) => panic!("{text:?}: {e}"),
        };
        assert!(read(""));
        assert!(read(
            "kernel = \"k\"\ndescription = \"d\"\n[launch]\ngrid = [80]\nblock = [128]\n[resources]\nregisters_per_thread = 32\n"
        ));
        assert!(!read("[warp_instructions]\nint_add = 1\n"));
        assert!(!read("[global.loads]\nbytes = 4\n"));
        assert!(!read("[analysis.mwp_cwp]\ncomp_insts = 27\n"));
        assert!(!read("[workload]\nactivity_factor = 0.75\n"));
    }

    #[test]
    fn launch_and_counts_are_read() {
        check(
            "[launch]\ngrid = [80, 1, 1]\nblock = [128, 1, 1]\n[warp_instructions]\nint_add = 10\nfp32_fma = 2.5\n",
            Ok(|p| {
                p.launch.blocks() == 80
                    && p.launch.warps_per_block(32) == 4
                    && p.warp_instructions.compute() == 12.5
                    && p.warp_instructions.flops() == 5.0
            }),
        );
    }

    #[test]
    fn optional_analysis_inputs_are_read() {
        check(
            "[analysis.mwp_cwp]\ncomp_insts = 27\n[analysis.kothapalli]\ncomp_cycles = 6080.0\n",
            Ok(|p| {
                p.analysis.mwp_cwp.comp_insts == Some(27.0)
                    && p.analysis.mwp_cwp.synch_insts.is_none()
                    && p.analysis.kothapalli.comp_cycles == Some(6080.0)
            }),
        );
    }

    #[test]
    fn workload_and_cache_sections_are_read() {
        check(
            "[workload]\nactivity_factor = 0.75\n[cache]\ngpu = \"a100-pcie-40gb\"\nl2_hit_rate = 0.5\n",
            Ok(|p| {
                p.workload.activity_factor == Some(0.75)
                    && p.workload.memory_intensity.is_none()
                    && p.cache.gpu == "a100-pcie-40gb"
                    && p.cache.l2_hit_rate == Some(0.5)
                    && p.cache.dram_read_bytes.is_none()
            }),
        );
    }

    #[test]
    fn negative_workload_figure_is_rejected() {
        check(
            "[workload]\nsector_reuse = -1.0\n",
            Err("workload.sector_reuse: must not be negative"),
        );
    }

    #[test]
    fn unknown_workload_field_is_located() {
        check(
            "[workload]\nactivity = 1.0\n",
            Err(
                "2:1: unknown field `activity`, expected one of `activity_factor`, `divergent_branch_ratio`, `max_reconvergence_depth`, `memory_intensity`, `memory_efficiency`, `memory_efficiency_sectors`, `inter_thread_data_flow`, `mimd_parallelism`, `simd_parallelism`, `shared_conflict_ways_16banks`, `footprint_sector_bytes`, `footprint_line_bytes`, `sector_reuse`, `ctas_emulated`, `sampling_error`, `integer_convert_fraction`, `int32_to_f32_convert_fraction`, `narrow_uint_to_f32_convert_fraction`, `float64_convert_fraction`, `fp64_div_sqrt_fraction`, `fp64_rcp_fraction`",
            ),
        );
    }

    #[test]
    fn register_source_is_read() {
        check(
            "[resources]\nregisters_per_thread = 32\nregisters_source = \"ptxas\"\n",
            Ok(|p| p.resources.registers_source == crate::RegisterSource::Ptxas),
        );
    }

    #[test]
    fn compiler_version_is_read() {
        check(
            "[resources]\ncompiler = \"13.0\"\n",
            Ok(|p| p.resources.compiler == Some(crate::CompilerVersion::new(13, 0))),
        );
        check(
            "[resources]\ncompiler = \"12.9.86\"\n",
            Ok(|p| p.resources.compiler == Some(crate::CompilerVersion::new(12, 9))),
        );
        check(
            "[resources]\nregisters_per_thread = 32\n",
            Ok(|p| p.resources.compiler.is_none()),
        );
        check(
            "[resources]\ncompiler = \"thirteen\"\n",
            Err(
                "2:12: compiler version \"thirteen\" is not \"major.minor\" (for example \"12.9\")",
            ),
        );
    }

    #[test]
    fn compiler_version_round_trips() {
        let mut p = KernelProfile::default();
        p.resources.compiler = Some(crate::CompilerVersion::new(13, 0));
        let text = match toml::to_string(&p) {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        };
        assert!(text.contains("compiler = \"13.0\""), "{text}");
        let back = KernelProfile::from_toml(&text).map(|q| q.resources.compiler);
        assert_eq!(back.ok(), Some(p.resources.compiler));
        for bad in ["13", "13.x", "13.0.x", "", "1 3.0"] {
            assert_eq!(crate::CompilerVersion::parse(bad), None, "{bad:?}");
        }
        assert_eq!(
            crate::CompilerVersion::parse("V12.9.86"),
            Some(crate::CompilerVersion::new(12, 9))
        );
    }

    #[test]
    fn unknown_field_is_located() {
        check(
            "kernel = \"k\"\n\n[launch]\ngrdi = [1, 1, 1]\n",
            Err("4:1: unknown field `grdi`, expected one of `grid`, `block`, `dynamic_shared`"),
        );
    }

    #[test]
    fn wrong_type_is_located() {
        check(
            "[global]\n  uncoalesced_instructions = \"six\"\n",
            Err("2:30: invalid type: string \"six\", expected f64"),
        );
    }

    #[test]
    fn syntax_error_is_located() {
        check("[launch\n", Err("1:8: unclosed table, expected `]`"));
    }

    #[test]
    fn negative_count_is_rejected() {
        check(
            "[shared.loads]\nrequests = -1\n",
            Err("shared.loads.requests: must not be negative"),
        );
    }

    #[test]
    fn nan_is_rejected() {
        check(
            "[analysis.gpuperf]\nilp = nan\n",
            Err("analysis.gpuperf.ilp: must be a finite number"),
        );
    }

    #[test]
    fn short_dimensions_are_padded() {
        check(
            "[launch]\ngrid = [8, 8]\nblock = [256]\n",
            Ok(|p| p.launch.grid == [8, 8, 1] && p.launch.block == [256, 1, 1]),
        );
    }

    #[test]
    fn four_dimensions_are_refused() {
        check(
            "[launch]\ngrid = [1, 1, 1, 1]\n",
            Err("2:8: invalid length 4, expected 1 to 3 dimensions"),
        );
    }

    #[test]
    fn empty_block_is_rejected() {
        check(
            "[launch]\nblock = [0, 1, 1]\n",
            Err("launch.block: every dimension must be at least 1"),
        );
    }

    #[test]
    fn round_trips_through_toml() {
        let mut p = KernelProfile::default();
        p.launch.grid = [3, 2, 1];
        p.global.dram_bytes = Some(1024.0);
        p.per_thread.max.int_div = 4.0;
        p.workload.activity_factor = Some(0.5);
        p.cache.gpu = "h100-sxm5-80gb".to_string();
        p.cache.dram_read_bytes = Some(4096.0);
        let text = match toml::to_string(&p) {
            Ok(t) => t,
            Err(e) => panic!("serialise: {e}"),
        };
        assert_eq!(KernelProfile::from_toml(&text), Ok(p));
    }
}
