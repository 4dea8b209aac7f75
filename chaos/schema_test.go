package chaos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v4"
)

// docs/scenario.schema.json is Schema(), regenerated with -rewrite.
func TestSchemaIsCurrent(t *testing.T) {
	const path = "../docs/scenario.schema.json"
	got, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	if *rewrite {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(want, got) {
		t.Fatalf("docs/scenario.schema.json is not Schema() (go test ./chaos -run TestSchemaIsCurrent -rewrite): %v", err)
	}
}

// Every built-in scenario is valid under the schema, and the schema
// refuses what the parser refuses by shape: an unknown field, a missing
// required one, a fault kind that does not exist, a word outside an enum.
func TestSchemaAcceptsBuiltins(t *testing.T) {
	b, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	docs := func(src []byte) []any {
		var out []any
		dec := yaml.NewDecoder(bytes.NewReader(src))
		for {
			var v any
			if err := dec.Decode(&v); err != nil {
				return out
			}
			out = append(out, v)
		}
	}
	for _, name := range BuiltinNames() {
		src, _ := Builtin(name)
		for i, doc := range docs(src) {
			if err := validate(schema, doc, "$"); err != nil {
				t.Errorf("built-in %s, document %d: %v", name, i, err)
			}
		}
	}
	for _, bad := range []string{
		"name: x\nalgorithms: [bully]\nnodez: 4\n",
		"algorithms: [bully]\n",
		"name: x\nalgorithms: [bully]\nfaults:\n  - kind: teleport\n",
		"name: x\nalgorithms: [bully]\nrank: height\n",
		"name: x\nalgorithms: [bully]\nfaults:\n  - kind: crash\n    target: leader\n    shape: halves\n",
		"name: x\nalgorithms: [bully]\nnetwork:\n  latency: 1ms\n  jitter: 2\n",
	} {
		if err := validate(schema, docs([]byte(bad))[0], "$"); err == nil {
			t.Errorf("the schema accepts %q", bad)
		}
	}
}

// validate checks v against the subset of JSON Schema Schema writes:
// type, properties, additionalProperties false, required, enum, const,
// anyOf, items, minimum and maximum.
func validate(s map[string]any, v any, at string) error {
	if c, ok := s["const"]; ok && fmt.Sprint(c) != fmt.Sprint(v) {
		return fmt.Errorf("%s: %v is not %v", at, v, c)
	}
	if e, ok := s["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return fmt.Sprint(x) == fmt.Sprint(v) }) {
		return fmt.Errorf("%s: %v is not one of %v", at, v, e)
	}
	if alts, ok := s["anyOf"].([]any); ok {
		var errs []string
		for _, a := range alts {
			err := validate(a.(map[string]any), v, at)
			if err == nil {
				errs = nil
				break
			}
			errs = append(errs, err.Error())
		}
		if errs != nil {
			return fmt.Errorf("%s: no alternative fits: %s", at, strings.Join(errs, " | "))
		}
	}
	if err := checkType(s["type"], v, at); err != nil {
		return err
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, r := range asList(s["required"]) {
			if _, ok := x[r.(string)]; !ok {
				return fmt.Errorf("%s: %s is required", at, r)
			}
		}
		for k, val := range x {
			p, ok := props[k]
			if !ok {
				if s["additionalProperties"] == false {
					return fmt.Errorf("%s: unknown field %s", at, k)
				}
				continue
			}
			if err := validate(p.(map[string]any), val, at+"."+k); err != nil {
				return err
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				if err := validate(items, e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
	case int, float64:
		f := toFloat(x)
		if lo, ok := s["minimum"].(float64); ok && f < lo {
			return fmt.Errorf("%s: %v < %v", at, f, lo)
		}
		if hi, ok := s["maximum"].(float64); ok && f > hi {
			return fmt.Errorf("%s: %v > %v", at, f, hi)
		}
	}
	return nil
}

func checkType(t any, v any, at string) error {
	if t == nil {
		return nil
	}
	for _, name := range asList(t) {
		if isType(name.(string), v) {
			return nil
		}
	}
	return fmt.Errorf("%s: %v (%T) is not %v", at, v, v, t)
}

func isType(name string, v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return name == "object"
	case []any:
		return name == "array"
	case string:
		return name == "string"
	case bool:
		return name == "boolean"
	case int:
		return name == "integer" || name == "number"
	case float64:
		return name == "number" || name == "integer" && x == math.Trunc(x)
	}
	return false
}

func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	if v == nil {
		return nil
	}
	return []any{v}
}

func toFloat(v any) float64 {
	if i, ok := v.(int); ok {
		return float64(i)
	}
	return v.(float64)
}
