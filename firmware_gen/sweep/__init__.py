"""Many jobs: `firmware-gen sweep` (models x boards x options, spec.py, job.py, results.py, page.py, run.py) and
`validate --dataset --jobs/--ray` (dataset_chunks.py), on a local process pool (local_pool.py) or a Ray cluster
(ray_pool.py). Above check/: a job is the driver's deploy plus check's comparison with TFLM."""
