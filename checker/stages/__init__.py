"""The shared stages of the pipeline, the same for every track.

load (a submission folder, bounded) -> validate (format, hash chain, manifest) -> [the track's
replay, gate and score: `checker.agent`, `checker.constraint`] -> aggregate (per-cell figures).
Also here: the rules (profiles and thresholds), the pre-registration's checks, copy detection, the
interface a track's scorer implements (`tracks`) and the one verdict function (`verdict`).
"""
