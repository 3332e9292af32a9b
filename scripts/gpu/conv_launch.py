"""Shared by block-lifetime.py and block-phases.py: Kernel Tuner's
convolution (experiments/convolution.toml) built and launched on this GPU
exactly as scripts/gpu/measure-kt.py builds it, one configuration at a time.
"""

import importlib.util
import os
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
_spec = importlib.util.spec_from_file_location("measure_kt", os.path.join(HERE, "measure-kt.py"))
kt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kt)

KERNEL = "convolution_kernel"
KEYS = ["block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "read_only", "use_padding"]


class Convolution:
    """The device, the kernel source (after `transform`) and the arguments."""

    def __init__(self, cp, np, transform=lambda source: source):
        with open(os.path.join(ROOT, "experiments", "convolution.toml"), "rb") as f:
            self.exp = tomllib.load(f)
        with open(os.path.join(ROOT, "experiments", self.exp["source"])) as f:
            self.source = transform(f.read())
        self.cp = cp
        props = cp.cuda.runtime.getDeviceProperties(0)
        self.sms = props["multiProcessorCount"]
        self.cc = cp.cuda.Device(0).compute_capability
        self.smem_per_sm = props["sharedMemPerMultiprocessor"]
        self.device = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        image = cp.zeros(4096 * 4096, dtype=cp.float32)
        inp = cp.asarray(np.random.default_rng(1).uniform(-1, 1, (4096 + 14) * (4096 + 14)).astype(np.float32))
        self.filt = cp.asarray(np.random.default_rng(2).uniform(-1, 1, 15 * 15).astype(np.float32))
        self.args = (image, inp, self.filt)
        self.start, self.stop = cp.cuda.Event(), cp.cuda.Event()

    def header(self):
        return {"device": self.device, "sms": self.sms, "cc": self.cc, "versions": kt.versions(self.cp)}

    def load(self, config, cubin_path):
        """Compile CONFIG (`KEYS` comma-separated); returns (params, None,
        error) or (params, launch, None) where launch has the module, the
        function, grid and block, and the dynamic shared memory that leaves
        room for one block per SM (already allowed on the function)."""
        params = dict(zip(KEYS, config.split(",")))
        params.update({"filter_width": "15", "filter_height": "15"})
        grid, block = kt.launch_geometry(self.exp, {k: int(v) for k, v in params.items()})
        entries = kt.kernel_tuner_prefix(grid, block, list(params.items()))
        text = kt.instantiate(self.source, entries)
        _, cubin, name, err = kt.compile_one((config, text, KERNEL, [f"--gpu-architecture=sm_{self.cc}"]))
        if err:
            return params, None, err
        with open(cubin_path, "wb") as f:
            f.write(cubin)
        module = self.cp.RawModule(path=cubin_path)
        fn = module.get_function(name)
        module.get_global("d_filter").copy_from_device(self.filt.data, self.filt.nbytes)
        one_per_sm = max(0, self.smem_per_sm // 2 + 1 - fn.shared_size_bytes)
        fn.max_dynamic_shared_size_bytes = one_per_sm
        launch = {"module": module, "fn": fn, "grid": tuple(grid[:2]), "block": tuple(block[:2]),
                  "one_per_sm": one_per_sm}
        return params, launch, None

    def median_ms(self, fn, grid, block, args, shared=0, runs=20):
        """CUDA-event time of one launch: median of `runs` after 3 warm-ups."""
        for _ in range(3):
            fn(grid, block, args, shared_mem=shared)
        times = []
        for _ in range(runs):
            self.start.record()
            fn(grid, block, args, shared_mem=shared)
            self.stop.record()
            self.stop.synchronize()
            times.append(self.cp.cuda.get_elapsed_time(self.start, self.stop))
        return sorted(times)[len(times) // 2]
