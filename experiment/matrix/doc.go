// Package matrix is a compare folder: the runs of environments ×
// controllers × seeds that `hyperctl compare` trains, laid out as
//
//	OUT/compare.json                 the matrix asked for (Manifest), with the
//	                                 Slurm jobs submitted for it
//	OUT/<env>/<controller>/seed<N>/  one run folder per cell (RunDir; see package rundir)
//
// It holds the one place each rule of that folder lives: the layout (RunDir
// builds a cell's folder, ParseRunDir and Matrices.RunName read one back,
// TrainDir and NameByConfig the same for train's own folders, NewTrainDir the
// folder of a launch without --out: the default, or the first free -runN),
// the manifest (ReadManifest, WriteManifest, Merge for a second compare on
// the same folder, AppendSlurmJob for a submission), a run's state (Inspect, the
// rule `hyperctl status`, the Slurm backend and the dashboard share;
// Collect for a whole matrix, Folders for run folders outside one), and
// the Backend that runs a compare: Local, a pool of `hyperctl train`
// children on this machine, or the Slurm backend of package slurm, which
// tracks its tasks through a Tracker. Workers is the pool for work that
// comes in many small requests (a population's members, generation after
// generation): long-lived children, each running request after request
// (ServeWorker is their side).
package matrix
