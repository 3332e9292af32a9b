//! `Options::ptx_arch` (`validate --ptx-arch`): one architecture every
//! configuration is compiled for, checked against the run's GPUs before
//! anything is compiled.

use arch::Gpu;

use crate::error::StudyError;
use crate::target::{OLDEST_ARCH, arch_version, sm_name};

/// The (major, minor) of an `sm_NN` architecture name, `None` if it is not one.
fn sm_version(arch: &str) -> Option<(u32, u32)> {
    let digits = arch.strip_prefix("sm_")?;
    if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Some((major.parse().ok()?, minor.parse().ok()?))
}

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
    let Some(wanted) = sm_version(arch) else {
        return Err(fail(
            "not an architecture name: write sm_ and its compute capability's digits (sm_50, sm_75, sm_86)".to_string(),
        ));
    };
    if wanted < OLDEST_ARCH {
        return Err(fail(format!(
            "NVRTC compiles for {} and newer",
            sm_name(OLDEST_ARCH)
        )));
    }
    for gpu in gpus {
        let own = arch_version(gpu);
        if wanted > own {
            return Err(fail(format!(
                "newer than {} ({}): ptxas builds PTX only for its own target or a newer one; give the oldest architecture of the run",
                gpu.id,
                sm_name(own)
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
    }

    #[test]
    fn sm_versions() {
        assert_eq!(sm_version("sm_50"), Some((5, 0)));
        assert_eq!(sm_version("sm_86"), Some((8, 6)));
        assert_eq!(sm_version("sm_100"), Some((10, 0)));
        assert_eq!(sm_version("sm_9"), None);
        assert_eq!(sm_version("sm_90a"), None);
    }
}
