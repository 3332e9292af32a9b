#!/usr/bin/env python3
"""Compare Nsight Compute's L1 data-stage wavefronts of CLBlast's Xgemm
(scripts/gpu/ncu-gemm.sh) with the counts of ptxperf's emulated profiles of
the same configurations.

Usage:
  scripts/gpu/ncu-l1-wavefronts.py RAW.csv.gz UNDER_NCU.json.gz PROFILES_DIR

- RAW.csv.gz: `ncu --csv --page raw` of the run (gemm-ncu-raw.csv.gz)
- UNDER_NCU.json.gz: the cache file that run wrote (gemm-under-ncu.json.gz);
  its configurations are in launch order, two launches each (a checked one,
  then the timed one: the second is read)
- PROFILES_DIR: the profiles of `ptxperf validate experiments/gemm.toml
  --data GEMM-NCU-TIMES.json.gz --gpu GPU --save-profiles DIR` (DIR/GPU/)

Per configuration: global load requests (Nsight Compute / profile), L1
data-stage wavefronts per global load request (the data pipe's wavefronts
less the shared-memory ones, over the requests; local-memory spills are in
Nsight Compute's, not the profile's), shared load requests and wavefronts
per shared load request (profiles written since 2026-12-04 count the
wider loads ptxas makes of neighbouring words, older ones PTX accesses:
docs/timing-model.md, "Wide shared accesses ptxas makes"), the data stage's
wavefronts per SM clock, and the SM count it assumes.
"""
import csv
import gzip
import json
import os
import sys
import tomllib


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    raw, under, profiles = sys.argv[1:]
    rows = list(csv.reader(gzip.open(raw, "rt")))
    header, data = rows[0], rows[2:]
    col = {h: i for i, h in enumerate(header)}

    def num(row, name):
        text = row[col[name]].replace(",", "")
        return float(text) if text else 0.0

    launches = json.load(gzip.open(under, "rt"))
    configs = list(launches["cache"].values())
    if len(data) != 2 * len(configs):
        sys.exit(f"ncu-l1-wavefronts: {len(data)} profiled launches for {len(configs)} configurations")
    names = [n for n in os.listdir(profiles) if n.endswith(".toml")]
    keys = ["MWG", "NWG", "MDIMC", "NDIMC", "MDIMA", "NDIMB", "VWM", "VWN", "SA", "SB"]
    print("MWG,NWG,MDIMC,NDIMC,VWM,VWN,SA,SB  global requests M (ncu/profile)  wavefronts/request (ncu/profile)"
          "  shared requests M (ncu/profile)  wavefronts/request (ncu/profile)  data stage per clock")
    for n, p in enumerate(configs):
        row = data[2 * n + 1]
        match = [f for f in names if all(f",{k}={p[k]}," in "," + f for k in keys)]
        if len(match) != 1:
            sys.exit(f"ncu-l1-wavefronts: {len(match)} profiles match {p}")
        with open(os.path.join(profiles, match[0]), "rb") as f:
            prof = tomllib.load(f)
        sms = num(row, "device__attribute_multiprocessor_count")
        total = num(row, "SM_A.TriageCompute.l1tex__data_pipe_lsu_wavefronts.avg") * sms
        shared = num(row, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")
        shared_ld = num(row, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")
        g_req = num(row, "smsp__sass_inst_executed_op_global_ld.sum")
        s_req = num(row, "smsp__sass_inst_executed_op_shared_ld.sum")
        cycles = num(row, "sm__cycles_elapsed.avg")
        pg = prof["global"]
        e_req = pg["loads"]["requests"]
        e_wf = pg.get("load_wavefronts", float("nan"))
        e_sreq = prof["shared"]["loads"]["requests"]
        e_spass = prof["shared"]["loads"]["transactions"]
        label = ",".join(str(p[k]) for k in ["MWG", "NWG", "MDIMC", "NDIMC", "VWM", "VWN", "SA", "SB"])
        print(f"{label:<34} {g_req / 1e6:8.1f} / {e_req / 1e6:8.1f}"
              f"  {(total - shared) / max(g_req, 1):7.2f} / {e_wf / max(e_req, 1):7.2f}"
              f"  {s_req / 1e6:8.1f} / {e_sreq / 1e6:8.1f}"
              f"  {shared_ld / max(s_req, 1):7.2f} / {e_spass / max(e_sreq, 1):7.2f}"
              f"  {total / sms / max(cycles, 1):5.2f} ({sms:.0f} SMs)")


if __name__ == "__main__":
    main()
