//! `Options::ptx_arch` (`validate --ptx-arch`): one architecture every
//! configuration is compiled for, checked against the run's GPUs before
//! anything is compiled.

use arch::Gpu;
use pipeline::{OLDEST_ARCH, gpu_arch};
use profile::SmArch;

use crate::error::StudyError;

/// `arch` (`Options::ptx_arch`) names an architecture NVRTC compiles for
/// and is no newer than any of `gpus`' (ptxas builds PTX for its own target
/// or a newer one).
pub(super) fn check_ptx_arch<'g>(
    arch: &str,
    gpus: impl Iterator<Item = &'g Gpu>,
) -> Result<(), StudyError> {
    let fail = |why: String| StudyError::PtxArch {
        arch: arch.to_string(),
        why,
    };
    let Some(wanted) = SmArch::parse(arch) else {
        return Err(fail(
            "not an architecture name: write sm_ and its compute capability's digits (sm_50, sm_75, sm_86)".to_string(),
        ));
    };
    if SmArch::is_specific(arch) {
        return Err(fail(format!(
            "PTX for an architecture-specific target builds for that architecture only, not for every GPU of a run: give {wanted}"
        )));
    }
    if wanted < OLDEST_ARCH {
        return Err(fail(format!("NVRTC compiles for {OLDEST_ARCH} and newer")));
    }
    for gpu in gpus {
        let own = gpu_arch(gpu);
        if wanted > own {
            return Err(fail(format!(
                "newer than {} ({own}): ptxas builds PTX only for its own target or a newer one; give the oldest architecture of the run",
                gpu.id
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `check_ptx_arch(arch, gpus)`: `Ok` or the error's text.
    fn check(arch: &str, gpus: &[&str], expect: Result<(), &str>) {
        let catalog = arch::Catalog::bundled().expect("the bundled catalog loads");
        let gpus: Vec<Gpu> = gpus
            .iter()
            .map(|id| catalog.get(id).expect("a catalog GPU").clone())
            .collect();
        let got = check_ptx_arch(arch, gpus.iter()).map_err(|e| e.to_string());
        match (got, expect) {
            (Ok(()), Ok(())) => {}
            (Err(g), Err(want)) => assert!(g.contains(want), "{arch}: {g:?} lacks {want:?}"),
            (got, want) => panic!(
                "{arch} on {gpus:?}: got {got:?}, expected {want:?}",
                gpus = gpus.len()
            ),
        }
    }

    #[test]
    fn ptx_arch_must_be_no_newer_than_every_gpu() {
        check("sm_50", &["tesla-k20m", "geforce-rtx-2070-super"], Ok(()));
        check(
            "sm_61",
            &["geforce-gtx-1080-ti", "geforce-rtx-3090"],
            Ok(()),
        );
        check("sm_75", &["geforce-rtx-2070-super"], Ok(()));
        check(
            "sm_75",
            &["geforce-rtx-3090", "geforce-gtx-1080-ti"],
            Err("newer than geforce-gtx-1080-ti (sm_61)"),
        );
        // The K20m (CC 3.5) gets sm_50 code: sm_52 is newer than that.
        check(
            "sm_52",
            &["tesla-k20m"],
            Err("newer than tesla-k20m (sm_50)"),
        );
        check(
            "sm_35",
            &["geforce-rtx-3090"],
            Err("NVRTC compiles for sm_50 and newer"),
        );
        check(
            "compute_50",
            &["geforce-rtx-3090"],
            Err("not an architecture name"),
        );
        check(
            "sm_",
            &["geforce-rtx-3090"],
            Err("not an architecture name"),
        );
        check(
            "sm_8x",
            &["geforce-rtx-3090"],
            Err("not an architecture name"),
        );
        check("sm_86a", &["geforce-rtx-3090"], Err("give sm_86"));
        check(
            "sm_100",
            &["geforce-rtx-3090"],
            Err("newer than geforce-rtx-3090"),
        );
    }
}
