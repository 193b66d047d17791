package openapitest

import (
	"fmt"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestNullableHasAType holds both documents to OpenAPI 3.0.3's reading of
// nullable, which strict validators (and Redocly's nullable-type-sibling
// rule, run by .ci/run) apply: nullable adds null to the types that type
// names beside it, so a nullable schema with no type (nullable beside a
// bare allOf or anyOf) allows no null at all, and a validator refuses the
// nulls the server sends.
func TestNullableHasAType(t *testing.T) {
	for _, file := range []string{"../../api/openapi.yaml", "../../api/manage.openapi.yaml"} {
		d := Load(t, file)
		var bad []string
		seen := map[*openapi3.Schema]bool{}
		var walk func(where string, s *openapi3.SchemaRef)
		walk = func(where string, s *openapi3.SchemaRef) {
			if s == nil || s.Value == nil || seen[s.Value] {
				return
			}
			v := s.Value
			seen[v] = true
			if v.Nullable && (v.Type == nil || len(v.Type.Slice()) == 0) {
				bad = append(bad, where)
			}
			for name, p := range v.Properties {
				walk(where+"."+name, p)
			}
			walk(where+"[]", v.Items)
			for i, x := range v.AllOf {
				walk(fmt.Sprintf("%s.allOf[%d]", where, i), x)
			}
			for i, x := range v.AnyOf {
				walk(fmt.Sprintf("%s.anyOf[%d]", where, i), x)
			}
			for i, x := range v.OneOf {
				walk(fmt.Sprintf("%s.oneOf[%d]", where, i), x)
			}
			walk(where+".additionalProperties", v.AdditionalProperties.Schema)
		}
		for name, s := range d.Spec.Components.Schemas {
			walk(name, s)
		}
		for path, item := range d.Spec.Paths.Map() {
			for method, op := range item.Operations() {
				for status, r := range op.Responses.Map() {
					for ct, mt := range r.Value.Content {
						walk(method+" "+path+" "+status+" "+ct, mt.Schema)
					}
				}
				if op.RequestBody != nil {
					for ct, mt := range op.RequestBody.Value.Content {
						walk(method+" "+path+" body "+ct, mt.Schema)
					}
				}
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s: nullable without a type beside it (null is then not allowed): %v", file, bad)
		}
	}
}
