// Schema migrations, in order: migration i brings user_version from i to i+1.
// Never edit a released migration; append a new one.
#pragma once

#include <array>

namespace harness {

inline constexpr std::array<const char*, 4> kMigrations = {
    // 0 -> 1: runs and what they produced.
    R"sql(
CREATE TABLE runs (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  scenario_name TEXT NOT NULL,
  scenario_path TEXT NOT NULL,
  scenario_hash TEXT NOT NULL,
  scenario_text TEXT NOT NULL,
  rig           TEXT NOT NULL,
  origin        TEXT NOT NULL CHECK (origin IN ('live', 'replay')),
  status        TEXT NOT NULL CHECK (status IN ('running', 'passed', 'failed', 'aborted')),
  reason        TEXT NOT NULL DEFAULT '',
  started_at    TEXT NOT NULL,
  ended_at      TEXT NOT NULL DEFAULT '',
  context       TEXT NOT NULL DEFAULT '{}',
  recording     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX runs_by_scenario ON runs (scenario_name, rig, id);
CREATE TABLE metrics (
  run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  level       TEXT NOT NULL,
  name        TEXT NOT NULL,
  value       REAL,
  text        TEXT NOT NULL DEFAULT '',
  unit        TEXT NOT NULL,
  provenance  TEXT NOT NULL,
  source      TEXT NOT NULL,
  unavailable TEXT NOT NULL DEFAULT '',
  better      TEXT NOT NULL,
  PRIMARY KEY (run_id, name)
);
CREATE INDEX metrics_by_name ON metrics (name, run_id);
CREATE TABLE samples (
  run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  level      TEXT NOT NULL,
  name       TEXT NOT NULL,
  unit       TEXT NOT NULL,
  provenance TEXT NOT NULL,
  source     TEXT NOT NULL,
  better     TEXT NOT NULL,
  count      INTEGER NOT NULL,
  vals       BLOB NOT NULL,  -- count little-endian IEEE 754 doubles
  PRIMARY KEY (run_id, name)
);
CREATE TABLE artifacts (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  name   TEXT NOT NULL,
  path   TEXT NOT NULL,
  size   INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  kind   TEXT NOT NULL
);
CREATE TABLE verdicts (
  run_id   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq      INTEGER NOT NULL,
  level    TEXT NOT NULL,
  check_id TEXT NOT NULL,
  expected TEXT NOT NULL,
  measured TEXT NOT NULL,
  status   TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'unavailable')),
  detail   TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE hints (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq    INTEGER NOT NULL,
  text   TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
)sql",
    // 1 -> 2: named baselines. A name is unique per scenario and rig, so each
    // rig keeps its own "nightly" and a run is never judged against another
    // rig's numbers by accident.
    R"sql(
CREATE TABLE baselines (
  scenario_name TEXT NOT NULL,
  rig           TEXT NOT NULL,
  name          TEXT NOT NULL,
  run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  set_at        TEXT NOT NULL,
  PRIMARY KEY (scenario_name, rig, name)
);
CREATE INDEX baselines_by_name ON baselines (name);
)sql",
    // 2 -> 3: the process that runs a live run, so that one whose process
    // died shows as abandoned (run_owner.h). Older runs record none (pid 0).
    R"sql(
ALTER TABLE runs ADD COLUMN owner_pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN owner_pid_start TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN owner_boot_id TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN owner_host TEXT NOT NULL DEFAULT '';
)sql",
    // 3 -> 4: a baseline is a set of runs (e.g. the last 5 good nights), so
    // a comparison can hold a change against the spread between identical
    // runs. baselines.run_id stays the newest member (the run whose samples
    // the within-run tests use); every earlier baseline is a set of one.
    R"sql(
CREATE TABLE baseline_runs (
  scenario_name TEXT NOT NULL,
  rig           TEXT NOT NULL,
  name          TEXT NOT NULL,
  run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  PRIMARY KEY (scenario_name, rig, name, run_id)
);
INSERT INTO baseline_runs (scenario_name, rig, name, run_id)
  SELECT scenario_name, rig, name, run_id FROM baselines;
-- A regression acknowledged against a baseline (harness baseline ack): who,
-- when, why. It holds while the baseline's newest run is baseline_run; a new
-- baseline ends it.
CREATE TABLE baseline_acks (
  scenario_name TEXT NOT NULL,
  rig           TEXT NOT NULL,
  name          TEXT NOT NULL,
  metric        TEXT NOT NULL,
  baseline_run  INTEGER NOT NULL,
  acked_by      TEXT NOT NULL,
  acked_at      TEXT NOT NULL,
  reason        TEXT NOT NULL,
  PRIMARY KEY (scenario_name, rig, name, metric, baseline_run)
);
)sql",
};

}  // namespace harness
