//! `--resume`: a run interrupted after saving some profiles goes on from
//! them. The fixture of `multi_gpu` (out = 2 in on two GPUs of two
//! architectures); a first run saves every profile, then one is deleted
//! (the run was killed before it), one cut short between two lines (as an
//! interrupted copy leaves it) and a stray `.partial` left; the resumed run
//! must give the first run's outcomes, emulate only what is missing, and
//! leave every profile whole. Then one profile is restamped with other
//! profile rules (an older emulator's): it is emulated again.
//!
//! Without NVRTC the test says so and passes, except under CI.

use super::multi_gpu::{TwoGpus, nvrtc_or_skip, options, temp_dir};
use super::run_many;
use validate::score::Attempt;

#[test]
fn a_resumed_run_redoes_only_what_is_missing_and_scores_the_same() {
    if !nvrtc_or_skip() {
        return;
    }
    let dir = temp_dir("resume");
    let two = TwoGpus::written_to(&dir);
    let (experiment, pairs) = (&two.experiment, two.pairs());
    let (ampere, hopper) = (&two.gpus[0], &two.gpus[1]);
    let saved = dir.join("saved");
    let mut opts = options(None, 1, 2);
    opts.save_profiles = Some(saved.clone());
    let first = run_many(experiment, &pairs, &opts, &|_| ()).expect("first run");
    assert_eq!(first.shared.resumed, 0);
    // Six configurations: 32, 64, 128, 256 (a, and b but 64), 1024 (b only);
    // 512 failed in a's measurement and is not run.
    assert_eq!(first.shared.configurations, 6);

    // Killed before block_size_x=64 was saved on the RTX 3090 (its only
    // GPU), and while writing the H100's profile of 256.
    // The saved name holds every define: find it by block_size_x.
    let profile = |gpu: &arch::Gpu, bx: u32| {
        let folder = saved.join(&gpu.id);
        std::fs::read_dir(&folder)
            .expect("a folder per GPU")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| {
                p.extension().is_some_and(|x| x == "toml")
                    && p.to_string_lossy()
                        .contains(&format!(",block_size_x={bx},"))
            })
            .unwrap_or_else(|| panic!("no profile of block_size_x={bx} in {}", folder.display()))
    };
    let (missing, cut) = (profile(ampere, 64), profile(hopper, 256));
    std::fs::remove_file(&missing).expect("remove a profile");
    let whole = std::fs::read_to_string(&cut).expect("a saved profile");
    // Cut between two whole lines, as a copy interrupted there leaves it:
    // the rest would parse, its later fields taking their defaults, so only
    // the missing closing line (`saved::resumable`) says it was cut.
    let at = whole.find("\n[cache]").expect("a [cache] table") + 1;
    std::fs::write(&cut, &whole[..at]).expect("cut a profile");
    assert!(profile::KernelProfile::from_toml(&whole[..at]).is_ok());
    let mut partial = cut.clone().into_os_string();
    partial.push(".partial");
    std::fs::write(&partial, "x").expect("a stray partial file");

    for jobs in [1, 3] {
        let mut opts = options(None, 1, jobs);
        opts.save_profiles = Some(saved.clone());
        opts.resume = true;
        let resumed = run_many(experiment, &pairs, &opts, &|_| ()).expect("resumed run");
        for (x, y) in first.studies.iter().zip(&resumed.studies) {
            assert_eq!(x.outcomes, y.outcomes, "--jobs {jobs}");
            assert_eq!(x.scores, y.scores, "--jobs {jobs}");
        }
        let w = resumed.shared;
        if jobs == 1 {
            // 32, 128 and 1024 are resumed. 64 runs on the RTX 3090 alone
            // (b measured it as failed); 256 runs on both GPUs, since one
            // of its profiles is unreadable: compiled for both
            // architectures, emulated once.
            assert_eq!((w.resumed, w.ptx_compiled, w.emulations), (3, 3, 2));
        } else {
            // The first resumed run saved them again: nothing left to do.
            assert_eq!((w.resumed, w.ptx_compiled, w.emulations), (5, 0, 0));
        }
        assert_eq!(
            resumed
                .studies
                .iter()
                .map(|s| s.resumed)
                .collect::<Vec<_>>(),
            if jobs == 1 { vec![2, 3] } else { vec![4, 4] },
            "per GPU, configurations rescored from saved profiles"
        );
    }
    let again = std::fs::read_to_string(&cut).expect("saved again");
    assert_eq!(again, whole, "the cut profile was written whole again");
    assert!(missing.exists(), "the missing profile was saved");

    // A profile saved under other profile rules (an older emulator) is
    // emulated again, and saved under this build's.
    let stale = profile(ampere, 128);
    let current = std::fs::read_to_string(&stale).expect("a saved profile");
    let rules = format!("(profile rules {})", pipeline::PROFILE_RULES);
    assert!(current.contains(&rules), "saved with a stamp");
    std::fs::write(
        &stale,
        current.replace(&rules, "(profile rules 2000-01-01)"),
    )
    .expect("restamp a profile");
    let mut opts = options(None, 1, 2);
    opts.save_profiles = Some(saved.clone());
    opts.resume = true;
    let resumed = run_many(experiment, &pairs, &opts, &|_| ()).expect("resumed run");
    for (x, y) in first.studies.iter().zip(&resumed.studies) {
        assert_eq!(x.scores, y.scores, "after restamping");
    }
    // 128 runs on both GPUs: compiled for both architectures, emulated once.
    let w = &resumed.shared;
    assert_eq!((w.resumed, w.ptx_compiled, w.emulations), (4, 2, 1));
    assert_eq!(
        std::fs::read_to_string(&stale).expect("saved again"),
        current
    );

    // A configuration the saving run failed on stays failed, with the
    // reason that run recorded (what its outcome said), and is not run.
    let failing = profile(ampere, 32);
    std::fs::remove_file(&failing).expect("remove a profile");
    let why = "emulation: fuel exhausted after 1000 warp instructions";
    std::fs::write(failing.with_extension("failed"), format!("{why}\n")).expect("write .failed");
    let mut opts = options(None, 1, 2);
    opts.save_profiles = Some(saved.clone());
    opts.resume = true;
    let resumed = run_many(experiment, &pairs, &opts, &|_| ()).expect("resumed run");
    let w = &resumed.shared;
    assert_eq!((w.resumed, w.ptx_compiled, w.emulations), (5, 0, 0));
    // Row 0 of a.csv is block_size_x=32.
    let row = resumed.studies[0]
        .outcomes
        .iter()
        .find(|o| o.index == 0)
        .expect("the row of block_size_x=32");
    assert_eq!(row.attempt, Attempt::Failed(why.to_string()));
    std::fs::remove_file(failing.with_extension("failed")).expect("remove .failed");

    // Without --resume, the saved profiles are not read.
    let mut fresh = options(None, 1, 2);
    fresh.save_profiles = Some(saved.clone());
    let rerun = run_many(experiment, &pairs, &fresh, &|_| ()).expect("fresh run");
    assert_eq!((rerun.shared.resumed, rerun.shared.emulations), (0, 5));
    assert!(rerun.studies.iter().all(|s| s.profile_rules.is_empty()));

    // Rescoring (`--profiles`) reads profiles of any rules and says which:
    // on the RTX 3090, one restamped, one with no stamp, two of this build.
    std::fs::write(
        &stale,
        current.replace(&rules, "(profile rules 2000-01-01)"),
    )
    .expect("restamp a profile");
    let unstamped = profile(ampere, 64);
    let text = std::fs::read_to_string(&unstamped).expect("a saved profile");
    let body = text.split_once('\n').expect("a first line").1;
    std::fs::write(&unstamped, body).expect("drop the stamp");
    let mut rescore = options(None, 1, 2);
    rescore.profiles = Some(saved);
    let rescored = run_many(experiment, &pairs, &rescore, &|_| ()).expect("rescoring");
    for (x, y) in first.studies.iter().zip(&rescored.studies) {
        assert_eq!(x.scores, y.scores, "rescored");
    }
    let current_rules = Some(pipeline::PROFILE_RULES.to_string());
    assert_eq!(
        rescored.studies[0].profile_rules,
        vec![
            (None, 1),
            (Some("2000-01-01".to_string()), 1),
            (current_rules.clone(), 2)
        ]
    );
    assert_eq!(rescored.studies[1].profile_rules, vec![(current_rules, 4)]);
    let _ = std::fs::remove_dir_all(&dir);
}
