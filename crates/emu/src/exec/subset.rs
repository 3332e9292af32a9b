//! Running a chosen subset of a grid's CTAs: [`launch_ctas`] runs exactly the
//! listed CTAs with an observer (a stratified sample), and [`probe_ctas`]
//! counts, cheaply, the instructions of the CTAs of a list that finish within
//! a small budget (the CTAs past the data of a grid rounded up, which exit at once)
//! and which do not.
//!
//! Both run the CTAs in the order given, one after the other, on one copy of
//! global memory, so a CTA sees the writes of the CTAs run before it, as it
//! would in a sequential launch of those CTAs alone.

use ptx::Module;

use super::cta::{CtaStats, run_cta};
use super::launch::{
    Code, LaunchOptions, LaunchResult, LaunchStats, cta_coords, fill, finish, launch_ctx, prepare,
    prepare_for,
};
use super::warp::LaunchCtx;
use crate::fault::Fault;
use crate::mem::GlobalMemory;
use crate::observer::{NoObserver, Observer};
use crate::simt::stack::Policy;
use crate::spec::LaunchSpec;

/// Run exactly the CTAs with linear ids `ids` (in that order; ids past the
/// grid are skipped), with `obs` watching. `opts.ctas` and `opts.parallel`
/// are not used: the list is the selection, and it runs sequentially.
#[allow(clippy::result_large_err)]
pub fn launch_ctas<O: Observer>(
    module: &Module,
    text: &str,
    file: &str,
    spec: &LaunchSpec,
    opts: LaunchOptions,
    ids: &[u32],
    obs: &mut O,
) -> Result<LaunchResult, Fault> {
    let mut p = prepare_for(module, text, file, spec, opts).map_err(|f| *f)?;
    let total = spec.ctas();
    let c = &p.code;
    let lx = launch_ctx(c, spec, opts);
    let mut printf = String::new();
    let mut stats = LaunchStats::default();
    let mut totals = CtaStats::default();
    let progress = crate::progress::current();
    if let Some(pr) = &progress {
        pr.begin_ctas(ids.len() as u64);
    }
    for &linear in ids.iter().filter(|&&id| u64::from(id) < total) {
        let s = run_one(&lx, c, spec, linear, &mut p.global, &mut printf, obs).map_err(|f| *f)?;
        totals.add(&s);
        stats.ctas += 1;
        if let Some(pr) = &progress {
            pr.cta_done();
        }
    }
    fill(&mut stats, &totals);
    finish(p, printf, stats).map_err(|f| *f)
}

/// The warp instructions of each of the CTAs `ids` that finishes with no
/// warp executing more than `fuel` instructions; `None` for the CTAs that
/// ran out (they are stopped there) and for CTAs that fault (the full run
/// reports the fault). The answer is in the order of `ids`; ids past the
/// grid get `Some(0)` (they do nothing). An error only when the launch
/// cannot be prepared.
#[allow(clippy::result_large_err)]
pub fn probe_ctas(
    module: &Module,
    text: &str,
    file: &str,
    spec: &LaunchSpec,
    policy: Policy,
    ids: &[u32],
    fuel: u64,
) -> Result<Vec<Option<u64>>, Fault> {
    let mut p = prepare(module, text, file, spec).map_err(|f| *f)?;
    let total = spec.ctas();
    let opts = LaunchOptions {
        policy,
        fuel: Some(fuel),
        ..LaunchOptions::default()
    };
    let c = &p.code;
    let lx = launch_ctx(c, spec, opts);
    let mut printf = String::new();
    let mut finished = Vec::with_capacity(ids.len());
    let progress = crate::progress::current();
    if let Some(pr) = &progress {
        pr.begin_ctas(ids.len() as u64);
    }
    for &linear in ids {
        if let Some(pr) = &progress {
            pr.cta_done();
        }
        if u64::from(linear) >= total {
            finished.push(Some(0));
            continue;
        }
        let r = run_one(
            &lx,
            c,
            spec,
            linear,
            &mut p.global,
            &mut printf,
            &mut NoObserver,
        );
        finished.push(r.ok().map(|s| s.warp_instructions));
        // A probe prints nothing: printf output of the CTAs that finished
        // is not the user's (they print again in the full run).
        printf.clear();
    }
    Ok(finished)
}

/// Run the CTA with linear id `linear` of `spec`'s grid.
fn run_one<O: Observer>(
    lx: &LaunchCtx<'_>,
    c: &Code,
    spec: &LaunchSpec,
    linear: u32,
    global: &mut GlobalMemory,
    printf: &mut String,
    obs: &mut O,
) -> Result<CtaStats, Box<Fault>> {
    let id = cta_coords(spec.grid, linear);
    run_cta(
        lx,
        c.entry,
        id,
        linear,
        c.shared_template.clone(),
        global,
        printf,
        obs,
    )
}
