package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/pow"
)

// TestAgentsKubernetesRecipe checks docs/multi-host/agents-k8s.yaml as far
// as a machine without a cluster can: each document strictly decoded into
// k8s.io/api's own type (an unknown or mistyped field fails), the pieces
// naming each other (Service, StatefulSet, Secret, ConfigMap, Job), each
// agent started with its pod's key and the controller's identity, and the
// ConfigMap's hosts file, with its placeholders filled as the recipe says,
// read by the harness's own reader (harness.ReadHosts), naming every pod
// of the StatefulSet at its per-pod DNS name and port.
func TestAgentsKubernetesRecipe(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "docs", "multi-host", "agents-k8s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(src), "\n---\n")
	if len(docs) != 4 {
		t.Fatalf("%d documents, want Service, StatefulSet, ConfigMap, Job", len(docs))
	}
	var svc corev1.Service
	var set appsv1.StatefulSet
	var hostsMap corev1.ConfigMap
	var job batchv1.Job
	for i, v := range []any{&svc, &set, &hostsMap, &job} {
		if err := yaml.UnmarshalStrict([]byte(docs[i]), v); err != nil {
			t.Fatalf("document %d is not a %T: %v", i+1, v, err)
		}
	}
	if set.Spec.ServiceName != svc.Name || svc.Spec.ClusterIP != "None" {
		t.Errorf("the StatefulSet's service %q, the headless Service %q (clusterIP %q)", set.Spec.ServiceName, svc.Name, svc.Spec.ClusterIP)
	}
	labels := set.Spec.Template.Labels
	for k, v := range set.Spec.Selector.MatchLabels {
		if labels[k] != v || svc.Spec.Selector[k] != v {
			t.Errorf("selector %s=%s: pod labels %v, Service selector %v", k, v, labels, svc.Spec.Selector)
		}
	}
	agent := set.Spec.Template.Spec.Containers[0]
	args := strings.Join(agent.Args, " ")
	for _, want := range []string{"agent ", "--listen=$(POD_IP):", "--key=/keys/$(POD_NAME).id.key", "--controller=/keys/controller.id"} {
		if !strings.Contains(args, want) {
			t.Errorf("agent args %q: want %q", args, want)
		}
	}
	port := agent.Ports[0].ContainerPort
	if !strings.Contains(args, fmt.Sprintf(":%d", port)) {
		t.Errorf("agent args %q do not listen on its containerPort %d", args, port)
	}
	secret := set.Spec.Template.Spec.Volumes[0].Secret
	if secret == nil || !slices.ContainsFunc(job.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool {
		return v.Secret != nil && v.Secret.SecretName == secret.SecretName
	}) {
		t.Errorf("the agents' keys Secret is not the controller's too")
	}
	if !slices.ContainsFunc(job.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool {
		return v.ConfigMap != nil && v.ConfigMap.Name == hostsMap.Name
	}) {
		t.Errorf("the controller Job does not mount the ConfigMap %s", hostsMap.Name)
	}
	run := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " ")
	if !strings.Contains(run, "--hosts /etc/electbench/hosts.yaml") {
		t.Errorf("the controller's command %q does not run with the ConfigMap's hosts file", run)
	}
	checkRecipeHosts(t, hostsMap.Data["hosts.yaml"], &set, svc.Name, port)
}

// checkRecipeHosts fills the recipe's hosts file as its comment says (each
// agent's public key, the controller's key file) and
// reads it with the harness's reader.
func checkRecipeHosts(t *testing.T, text string, set *appsv1.StatefulSet, service string, port int32) {
	t.Helper()
	dir := t.TempDir()
	ctl, _, err := pow.Mint(context.Background(), pow.Params{Hash: pow.SHA256, Iterations: 1}, pow.MintOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := pow.WriteKeyFile(filepath.Join(dir, "controller.id.key"), ctl.Private); err != nil {
		t.Fatal(err)
	}
	text = strings.ReplaceAll(text, "/keys/", dir+"/")
	var pods []string
	for i := range int(*set.Spec.Replicas) {
		pod := fmt.Sprintf("%s-%d", set.Name, i)
		pods = append(pods, pod)
		k, _, err := pow.Mint(context.Background(), pow.Params{Hash: pow.SHA256, Iterations: 1}, pow.MintOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		text = strings.ReplaceAll(text, "PUBLIC_KEY_OF_"+pod, fmt.Sprintf("%x", k.Identity.PublicKey))
	}
	path := filepath.Join(dir, "hosts.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	hs, err := harness.ReadHosts(path)
	if err != nil {
		t.Fatalf("the recipe's hosts file, filled in: %v", err)
	}
	if len(hs.Hosts) != len(pods) {
		t.Fatalf("%d hosts for %d agent pods", len(hs.Hosts), len(pods))
	}
	for i, h := range hs.Hosts {
		if want := net.JoinHostPort(pods[i]+"."+service, fmt.Sprint(port)); h.Name != pods[i] || h.Agent != want {
			t.Errorf("host %d: %s at %s, want %s at %s", i, h.Name, h.Agent, pods[i], want)
		}
	}
}
