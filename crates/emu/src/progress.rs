//! Progress of a long run, for a front end to show (the CLI draws a bar).
//!
//! A [`Progress`] is shared between the thread that runs the work and one
//! that draws it. The work reports through the calling thread's current
//! [`Progress`], set by [`scoped`]: stages by name ([`stage`], e.g.
//! "compiling with NVRTC", "emulating"), and the emulator counts CTAs as
//! they finish (one relaxed atomic add per CTA, nothing per instruction; on
//! the host threads of a forked launch too, which receive the caller's
//! [`Progress`] explicitly). Without a scope nothing is reported and the
//! cost is one thread-local read per launch. Progress never changes results.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// What is being done, and how far the CTAs of the current launch are.
#[derive(Debug, Default)]
pub struct Progress {
    stage: Mutex<String>,
    /// The stage names an emulation ([`emulation_stage`]): a launch keeps it.
    emulating: AtomicBool,
    done: AtomicU64,
    total: AtomicU64,
}

impl Progress {
    /// The current stage's name ("" before the first).
    pub fn stage(&self) -> String {
        self.stage.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// CTAs finished and CTAs in the current launch (0, 0 outside a launch).
    pub fn ctas(&self) -> (u64, u64) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }

    /// Name the stage from any thread that holds this progress (a worker
    /// of the thread whose [`scoped`] progress it is, which [`current`]
    /// gave it): [`stage`] only reaches the calling thread's own.
    pub fn name_stage(&self, name: &str) {
        self.set_stage(name, false);
    }

    fn set_stage(&self, name: &str, emulating: bool) {
        if let Ok(mut s) = self.stage.lock() {
            name.clone_into(&mut s);
        }
        self.emulating.store(emulating, Ordering::Relaxed);
        self.total.store(0, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
    }

    /// A launch of `ctas` CTAs begins (in a stage that is not an emulation
    /// stage, the stage becomes "emulating").
    pub fn begin_ctas(&self, ctas: u64) {
        if !self.emulating.load(Ordering::Relaxed) {
            self.set_stage("emulating", true);
        }
        self.done.store(0, Ordering::Relaxed);
        self.total.store(ctas, Ordering::Relaxed);
    }

    /// One CTA finished.
    #[inline]
    pub fn cta_done(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Progress>>> = const { RefCell::new(None) };
}

/// Run `f` with `progress` as this thread's current [`Progress`] (the one
/// before is restored after).
pub fn scoped<T>(progress: Arc<Progress>, f: impl FnOnce() -> T) -> T {
    let before = CURRENT.with(|c| c.replace(Some(progress)));
    let out = f();
    CURRENT.with(|c| *c.borrow_mut() = before);
    out
}

/// Run `f` with no current [`Progress`] on this thread (the one before is
/// restored after): the stages of work done many times inside a larger
/// stage ("models (gpu)" for each of thousands of saved profiles) would
/// hide the larger stage's name.
pub fn unreported<T>(f: impl FnOnce() -> T) -> T {
    let before = CURRENT.with(|c| c.replace(None));
    let out = f();
    CURRENT.with(|c| *c.borrow_mut() = before);
    out
}

/// This thread's current [`Progress`], if any.
pub fn current() -> Option<Arc<Progress>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Name the stage this thread's work is in (no-op without a [`scoped`]
/// progress).
pub fn stage(name: &str) {
    set(name, false);
}

/// Name a stage that emulates CTAs ("emulating a sample of CTAs"): the
/// launches in it count their CTAs under this name.
pub fn emulation_stage(name: &str) {
    set(name, true);
}

fn set(name: &str, emulating: bool) {
    CURRENT.with(|c| {
        if let Some(p) = c.borrow().as_ref() {
            p.set_stage(name, emulating);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_and_ctas_reach_the_scoped_progress_only() {
        let p = Arc::new(Progress::default());
        stage("outside");
        assert_eq!(p.stage(), "");
        scoped(Arc::clone(&p), || {
            emulation_stage("emulating a sample");
            if let Some(c) = current() {
                c.begin_ctas(3);
                c.cta_done();
            }
        });
        assert_eq!(p.stage(), "emulating a sample");
        assert_eq!(p.ctas(), (1, 3));
        // A launch in another stage is named "emulating".
        scoped(Arc::clone(&p), || {
            stage("compiling");
            if let Some(c) = current() {
                c.begin_ctas(2);
            }
        });
        assert_eq!(p.stage(), "emulating");
        assert_eq!(p.ctas(), (0, 2));
        assert!(current().is_none());
        // A worker thread names the stage through the progress it was handed.
        let held = Arc::clone(&p);
        std::thread::spawn(move || held.name_stage("fold 1 of 2"))
            .join()
            .expect("worker");
        assert_eq!(p.stage(), "fold 1 of 2");
        assert_eq!(p.ctas(), (0, 0));
        // Inside `unreported` the stages go nowhere; after it, to the scope.
        scoped(Arc::clone(&p), || {
            stage("reading");
            unreported(|| stage("models"));
            assert_eq!(p.stage(), "reading");
            stage("training");
        });
        assert_eq!(p.stage(), "training");
    }
}
