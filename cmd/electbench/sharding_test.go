package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// The sharded-sweep recipes of docs/sharding (issue 19), each checked as
// far as this machine allows: the GitHub Actions workflow by actionlint
// (the workflow schema, expressions, action inputs), the Kubernetes
// Indexed Job by strict decoding into k8s.io/api's batch/v1 Job (the
// API's own types: an unknown or mistyped field fails), and the Slurm and
// plain-process scripts by running them here, shards as separate
// processes, and comparing the merge with the unsharded run.

func TestShardingActionsWorkflow(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "sharding", "actions.yml")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := actionlint.NewLinter(ioDiscard{}, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint(path, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("%s", e.Error())
	}
	if !bytes.Contains(src, []byte("--shard ${{ matrix.shard }}/4")) || !bytes.Contains(src, []byte("electbench merge shard-*")) {
		t.Error("the workflow does not shard by its matrix and merge")
	}
}

type ioDiscard struct{}

func (ioDiscard) Write(p []byte) (int, error) { return len(p), nil }

func TestShardingKubernetesJob(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "docs", "sharding", "job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(src), "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("%d documents, want the sweep and the merge", len(docs))
	}
	var sweep, merge batchv1.Job
	for i, j := range []*batchv1.Job{&sweep, &merge} {
		if err := yaml.UnmarshalStrict([]byte(docs[i]), j); err != nil {
			t.Fatalf("document %d is not a batch/v1 Job: %v", i+1, err)
		}
		if j.APIVersion != "batch/v1" || j.Kind != "Job" || len(j.Spec.Template.Spec.Containers) != 1 {
			t.Errorf("document %d: %s %s with %d containers", i+1, j.APIVersion, j.Kind, len(j.Spec.Template.Spec.Containers))
		}
	}
	s := sweep.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || s.Parallelism == nil {
		t.Fatal("the sweep is not an Indexed Job with completions and parallelism")
	}
	args := strings.Join(s.Template.Spec.Containers[0].Args, " ")
	if want := fmt.Sprintf("--shards=%d", *s.Completions); !strings.Contains(args, want) || !strings.Contains(args, "$(JOB_COMPLETION_INDEX)") {
		t.Errorf("the sweep's args %q: want %s and a per-index output directory", args, want)
	}
	if !strings.Contains(strings.Join(merge.Spec.Template.Spec.Containers[0].Args, " "), "electbench merge") {
		t.Error("the second Job does not merge")
	}
}

func TestShardingScripts(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed to run the scripts")
	}
	bin := buildElectbench(t)
	plan := "--algo ring,lcr,bully,raft --nodes 4..16 --trials 3 --latency uniform(1ms,5ms) --seed 5"
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "ELECTBENCH_PLAN="+plan)
	docs, err := filepath.Abs(filepath.Join("..", "..", "docs", "sharding"))
	if err != nil {
		t.Fatal(err)
	}
	whole := t.TempDir()
	run := exec.Command(bin, append(append([]string{"run"}, strings.Fields(plan)...), "--out", whole, "--format", "csv")...)
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("unsharded run: %v\n%s", err, out)
	}
	want, err := os.ReadFile(filepath.Join(whole, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}

	// Slurm: each array task a process of its own, in reverse order.
	dir := t.TempDir()
	for k := 3; k >= 1; k-- {
		cmd := exec.Command("bash", filepath.Join(docs, "slurm.sh"))
		cmd.Dir, cmd.Env = dir, append(env, fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", k), "SLURM_ARRAY_TASK_COUNT=3")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("slurm.sh task %d: %v\n%s", k, err, out)
		}
	}
	merge := exec.Command(bin, "merge", "shards/1", "shards/2", "shards/3", "--out", "merged")
	merge.Dir = dir
	if out, err := merge.CombinedOutput(); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "merged", "results.csv")); !bytes.Equal(got, want) {
		t.Error("slurm.sh: the merged results differ from the unsharded run's")
	}

	// Plain processes, 5 shards, 2 at a time, merged by the script.
	dir = t.TempDir()
	cmd := exec.Command("bash", filepath.Join(docs, "local.sh"), "5", "2")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("local.sh: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "merged", "results.csv")); !bytes.Equal(got, want) {
		t.Error("local.sh: the merged results differ from the unsharded run's")
	}
}

// buildElectbench builds this command into a temporary directory.
func buildElectbench(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "electbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
