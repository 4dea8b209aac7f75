package chaos

import (
	"encoding/json"
	"math"
	"strings"
)

// Schema is a JSON Schema (draft 2020-12) of scenario files, generated
// from the tables the parser reads them with, as Reference is: an editor
// given it (the YAML language server reads `# yaml-language-server:
// $schema=...`) completes every field, shows its documentation and default,
// and flags unknown fields and missing required ones. It is looser than
// the parser where a value's form is text the parser reads (a selector, a
// trigger, a duration): those it checks as strings or numbers, and
// `electbench scenario validate` is the judge. docs/scenario.schema.json
// is its output (TestSchemaIsCurrent).
func Schema() ([]byte, error) {
	faults := []any{object(healFields, nil)}
	for _, k := range Kinds() {
		s := object(faultFields(k), nil)
		s["properties"].(map[string]any)["kind"] = map[string]any{"const": k.Name, "description": k.Summary}
		s["title"] = k.Name
		faults = append(faults, s)
	}
	draw := map[string]any{"type": "integer", "minimum": 0, "maximum": uint64(math.MaxUint64)}
	nested := map[string]any{
		"network": object(networkFields, map[string]any{
			"links": map[string]any{"type": "array", "items": object(linkFields, nil)},
		}),
		"expect": object(expectFields, map[string]any{
			"columns": map[string]any{"type": "array", "items": object(columnFields, nil)},
		}),
		"faults": map[string]any{"type": "array", "items": map[string]any{"anyOf": faults}},
		"draws": object(drawsFields, map[string]any{
			"network":   map[string]any{"type": "array", "items": draw},
			"processes": map[string]any{"type": "array", "items": map[string]any{"type": "array", "items": draw}},
		}),
		"algorithms": map[string]any{"anyOf": []any{
			map[string]any{"const": "all"}, map[string]any{"const": "mutex"},
			map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{
				map[string]any{"type": "string"}, object(algorithmFields, nil)}}},
		}},
	}
	root := object(scenarioFields, nested)
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = "https://github.com/electbench/electbench/docs/scenario.schema.json"
	root["title"] = "electbench scenario file (one YAML document; docs/scenarios.md)"
	b, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// object is the schema of a mapping read with fields: each field's form
// (jsonType), documentation and default, the required ones, nothing else
// allowed; nested gives the schema of fields that are themselves mappings
// or lists of them.
func object[T any](fields []field[T], nested map[string]any) map[string]any {
	props := map[string]any{}
	var required []string
	for _, f := range fields {
		p, ok := nested[f.name].(map[string]any)
		if !ok {
			p = jsonType(f.typ)
		}
		doc := f.doc
		if f.def != "" {
			doc += " (default: " + f.def + ")"
		}
		if _, has := p["description"]; !has {
			p["description"] = doc
		}
		props[f.name] = p
		if f.required {
			required = append(required, f.name)
		}
	}
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// jsonType is the JSON form of a field of the reference's type typ.
func jsonType(typ string) map[string]any {
	switch typ {
	case "count":
		return map[string]any{"type": "integer"}
	case "probability":
		return map[string]any{"type": "number", "minimum": 0, "maximum": 1}
	case "duration":
		return map[string]any{"type": []string{"string", "number"}}
	case "boolean":
		return map[string]any{"type": "boolean"}
	case "comparison":
		return map[string]any{"type": []string{"string", "number"}}
	case "selector", "sizes", "selection", "arrangement":
		return map[string]any{"type": []string{"string", "integer", "array"}}
	case "list of selectors", "a list of words", "list":
		return map[string]any{"type": []string{"array", "string"}}
	case "mapping":
		return map[string]any{"type": "object"}
	case "sim or live":
		return map[string]any{"enum": []string{"sim", "live"}}
	case "out, in or both":
		return map[string]any{"enum": []string{"out", "in", "both"}}
	case "id or epoch":
		return map[string]any{"enum": []string{"id", "epoch"}}
	case "`always`":
		return map[string]any{"const": "always"}
	}
	if strings.HasPrefix(typ, "`all`") {
		return map[string]any{"type": []string{"string", "array"}}
	}
	return map[string]any{"type": "string"} // text, trigger, shape, latency model, detector, ...
}
