//! The memory hierarchy: per-SM L1, read-only and constant caches in front of
//! one shared L2 and DRAM. Applies the policies listed in the crate docs to
//! each sector of a request and counts what happens in a [`Tally`].

use crate::config::{CacheConfig, ReadOnlyPath};
use crate::report::{LevelStats, Tally, hit_age_bucket};
use crate::request::{Kind, Path, TRACE_SECTOR_BYTES};
use crate::tagstore::TagStore;

pub(crate) struct Hierarchy {
    l1: Vec<TagStore>,
    /// Empty when the read-only path goes through L1.
    readonly: Vec<TagStore>,
    constant: Vec<TagStore>,
    l2: TagStore,
    global_loads_allocate_l1: bool,
    /// L2 sectors per DRAM fill (`l2_fill_bytes / l2 sector`).
    fill_sectors: u32,
    /// Sector sizes of L1, read-only and constant caches: a miss fetches the
    /// whole sector from L2, as 32-byte pieces.
    l1_sector: u64,
    readonly_sector: u64,
    constant_sector: u64,
    pub l1_per_sm: Vec<LevelStats>,
}

impl Hierarchy {
    /// Cold caches for `num_sms` SMs; `cfg` must be validated.
    pub fn new(cfg: &CacheConfig, num_sms: usize) -> Hierarchy {
        let (readonly, readonly_sector) = match cfg.readonly {
            ReadOnlyPath::ThroughL1 => (Vec::new(), u64::from(cfg.l1.sector_bytes)),
            ReadOnlyPath::Separate(g) => {
                (vec![TagStore::new(&g); num_sms], u64::from(g.sector_bytes))
            }
        };
        Hierarchy {
            l1: vec![TagStore::with_ages(&cfg.l1); num_sms],
            readonly,
            constant: vec![TagStore::new(&cfg.constant); num_sms],
            l2: TagStore::new(&cfg.l2),
            global_loads_allocate_l1: cfg.global_loads_allocate_l1,
            fill_sectors: (cfg.l2_fill_bytes / cfg.l2.sector_bytes).max(1),
            l1_sector: u64::from(cfg.l1.sector_bytes),
            readonly_sector,
            constant_sector: u64::from(cfg.constant.sector_bytes),
            l1_per_sm: vec![LevelStats::default(); num_sms],
        }
    }

    /// Starts lockstep round `round`: L1 fills are stamped with it and L1
    /// hits aged by it.
    pub fn set_round(&mut self, round: u32) {
        self.l1.iter_mut().for_each(|c| c.set_round(round));
    }

    /// Issues one warp-level request from SM `sm`.
    pub fn issue(&mut self, sm: usize, kind: Kind, path: Path, sectors: &[u64], t: &mut Tally) {
        t.requests += 1;
        let n = sectors.len() as u64;
        let p = t.paths.get_mut(path.index());
        match kind {
            Kind::Load => {
                p.load_requests += 1;
                p.load_sectors += n;
            }
            Kind::Store => {
                p.store_requests += 1;
                p.store_sectors += n;
            }
            Kind::Atomic => {
                p.atomic_requests += 1;
                p.atomic_sectors += n;
            }
        }
        match (kind, path) {
            (Kind::Load, Path::Global) if self.global_loads_allocate_l1 => {
                sectors.iter().for_each(|&s| self.load_l1(sm, s, true, t))
            }
            (Kind::Load, Path::Global) => sectors.iter().for_each(|&s| self.l2_load(s, t)),
            (Kind::Load, Path::ReadOnly) if self.readonly.is_empty() => {
                sectors.iter().for_each(|&s| self.load_l1(sm, s, true, t))
            }
            (Kind::Load, Path::ReadOnly) => {
                for &s in sectors {
                    let hit = self.readonly[sm].access(s, true, false).hit;
                    t.readonly_cache.record(hit);
                    if !hit {
                        self.l2_load_sector(s, self.readonly_sector, t);
                    }
                }
            }
            (Kind::Load, Path::Constant) => {
                for &s in sectors {
                    let hit = self.constant[sm].access(s, true, false).hit;
                    t.constant_cache.record(hit);
                    if !hit {
                        self.l2_load_sector(s, self.constant_sector, t);
                    }
                }
            }
            (Kind::Load, Path::Local) => {
                sectors.iter().for_each(|&s| self.load_l1(sm, s, false, t))
            }
            (Kind::Store, Path::Local) => {
                // Write-back, write-allocate in L1: a full-sector write needs no fill.
                for &s in sectors {
                    let o = self.l1[sm].access(s, true, true);
                    self.write_back_l1(sm, o.evicted_line, o.evicted_dirty, t);
                }
            }
            (Kind::Store, _) => {
                // Write-through, no-allocate: update a resident copy, forward to L2.
                for &s in sectors {
                    self.l1[sm].access(s, false, false);
                    self.l2_write(s, t);
                }
            }
            (Kind::Atomic, _) => {
                // Performed at L2 (read-modify-write); L1 is not consulted.
                for &s in sectors {
                    t.atomic_sectors_at_l2 += 1;
                    self.l2_rmw(s, t);
                }
            }
        }
    }

    /// A load through L1 (allocating); `aged`: count its hit by age
    /// ([`Tally::l1_hit_ages`]; global data only: a local sector a store
    /// allocated is not a miss in flight).
    #[inline]
    fn load_l1(&mut self, sm: usize, s: u64, aged: bool, t: &mut Tally) {
        let o = self.l1[sm].access(s, true, false);
        t.l1.record(o.hit);
        if o.hit && aged {
            t.l1_hit_ages[hit_age_bucket(o.age)] += 1;
        }
        self.l1_per_sm[sm].record(o.hit);
        if !o.hit {
            self.write_back_l1(sm, o.evicted_line, o.evicted_dirty, t);
            self.l2_load_sector(s, self.l1_sector, t);
        }
    }

    /// Fetches from L2 the whole `sector_bytes` sector holding `s`, 32 B at a time.
    #[inline]
    fn l2_load_sector(&mut self, s: u64, sector_bytes: u64, t: &mut Tally) {
        let tb = u64::from(TRACE_SECTOR_BYTES);
        if sector_bytes <= tb {
            return self.l2_load(s, t);
        }
        let base = s & !(sector_bytes - 1);
        for piece in (base..base + sector_bytes).step_by(tb as usize) {
            self.l2_load(piece, t);
        }
    }

    /// Sends the dirty (local-memory) sectors of an evicted L1 line to L2.
    fn write_back_l1(&mut self, sm: usize, line: u64, mut dirty: u32, t: &mut Tally) {
        while dirty != 0 {
            let i = dirty.trailing_zeros();
            dirty &= dirty - 1;
            let addr = self.l1[sm].sector_addr(line, i);
            self.l2_write(addr, t);
        }
    }

    /// A read that reaches L2 on behalf of a load: allocate, fetch from DRAM on a miss.
    #[inline]
    fn l2_load(&mut self, s: u64, t: &mut Tally) {
        t.l2_to_sm_sectors += 1;
        let hit = self.l2_read(s, false, t);
        t.l2_loads.record(hit);
    }

    /// An atomic at L2: a read (fetching on a miss) that leaves the sector dirty.
    fn l2_rmw(&mut self, s: u64, t: &mut Tally) {
        self.l2_read(s, true, t);
    }

    /// Common read path; returns whether it hit.
    #[inline]
    fn l2_read(&mut self, s: u64, dirty: bool, t: &mut Tally) -> bool {
        let o = self.l2.access(s, true, dirty);
        t.l2.record(o.hit);
        if !o.hit {
            t.dram_write_sectors += u64::from(o.evicted_dirty.count_ones());
            let group = self.l2.group_mask(s, self.fill_sectors);
            // The missing sector itself was just marked valid by `access`.
            t.dram_read_sectors += 1 + u64::from(self.l2.fill_extra(o.slot, group));
        }
        o.hit
    }

    /// A write reaching L2: write-allocate without a DRAM fill (byte-masked sectors),
    /// marking the sector dirty.
    #[inline]
    fn l2_write(&mut self, s: u64, t: &mut Tally) {
        t.sm_to_l2_write_sectors += 1;
        let o = self.l2.access(s, true, true);
        t.l2.record(o.hit);
        t.dram_write_sectors += u64::from(o.evicted_dirty.count_ones());
    }

    /// Brings `s` into L2 as a CTA that ran before the simulated ones left
    /// it: valid, clean (its writes reached DRAM long ago), nothing counted.
    pub fn warm_l2(&mut self, s: u64) {
        self.l2.access(s, true, false);
    }

    /// Dirty L2 sectors still resident (written back at the end of the kernel).
    pub fn l2_dirty_sectors(&self) -> u64 {
        self.l2
            .dirty_lines()
            .map(|(_, d)| u64::from(d.count_ones()))
            .sum()
    }
}
