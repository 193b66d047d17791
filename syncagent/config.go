package syncagent

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Config is what a config file holds: the targets and the agent's own
// settings.
type Config struct {
	Targets []Target
	// MetricsAddr is the address of the metrics listener, or "".
	MetricsAddr string
}

// ReadConfig parses a config file (docs/delivery.md#the-config-file): lines
// of "name = value", "#" comments, and "[NAME]" sections, one per target.
// Values before the first section are defaults for every section (a file
// without sections is one target). key-file names a file holding the key;
// a relative path is taken from dir, the config file's directory.
func ReadConfig(r io.Reader, dir string) (*Config, error) {
	cfg := &Config{}
	defaults := map[string]string{}
	var sections []map[string]string
	var names []string
	cur := defaults
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") {
			name, ok := strings.CutSuffix(line[1:], "]")
			name = strings.TrimSpace(name)
			if !ok || name == "" {
				return nil, fmt.Errorf("line %d: a section is [NAME], got %q", n, line)
			}
			for _, seen := range names {
				if seen == name {
					return nil, fmt.Errorf("line %d: section [%s] appears twice", n, name)
				}
			}
			cur = map[string]string{}
			sections = append(sections, cur)
			names = append(names, name)
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, fmt.Errorf("line %d: want name = value, got %q", n, line)
		}
		if !knownSetting[k] {
			return nil, fmt.Errorf("line %d: unknown setting %q (known: edge, key, key-file, project, format, out, check, reload, haproxy-socket, haproxy-map, metrics-addr)", n, k)
		}
		if k == "metrics-addr" {
			if len(sections) > 0 {
				return nil, fmt.Errorf("line %d: metrics-addr belongs before the first section", n)
			}
			cfg.MetricsAddr = v
			continue
		}
		if _, dup := cur[k]; dup {
			return nil, fmt.Errorf("line %d: %s is set twice", n, k)
		}
		cur[k] = v
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(sections) == 0 {
		sections, names = []map[string]string{{}}, []string{""}
	}
	for i, sec := range sections {
		get := func(k string) string {
			if v, ok := sec[k]; ok {
				return v
			}
			return defaults[k]
		}
		t := Target{Name: names[i], Edge: get("edge"), Key: get("key"), Project: get("project"), Format: get("format"),
			Out: get("out"), Check: get("check"), Reload: get("reload"), HAProxySocket: get("haproxy-socket"), HAProxyMap: get("haproxy-map")}
		if kf := get("key-file"); kf != "" {
			if t.Key != "" {
				return nil, fmt.Errorf("target %s: key and key-file both set", t.label())
			}
			if !filepath.IsAbs(kf) {
				kf = filepath.Join(dir, kf)
			}
			b, err := os.ReadFile(kf)
			if err != nil {
				return nil, fmt.Errorf("target %s: key-file: %w", t.label(), err)
			}
			t.Key = strings.TrimSpace(string(b))
		}
		if err := t.Validate(); err != nil {
			return nil, err
		}
		cfg.Targets = append(cfg.Targets, t)
	}
	return cfg, CheckTargets(cfg.Targets)
}

// CheckTargets refuses two targets that would write one file.
func CheckTargets(ts []Target) error {
	seen := map[string]string{}
	for _, t := range ts {
		out := filepath.Clean(t.Out)
		if other, ok := seen[out]; ok {
			return fmt.Errorf("targets %s and %s both write %s", other, t.label(), t.Out)
		}
		seen[out] = t.label()
	}
	return nil
}

var knownSetting = map[string]bool{
	"edge": true, "key": true, "key-file": true, "project": true, "format": true, "out": true,
	"check": true, "reload": true, "haproxy-socket": true, "haproxy-map": true, "metrics-addr": true,
}
