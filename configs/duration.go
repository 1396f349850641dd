package configs

import (
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration that YAML reads and writes as a Go duration
// string: "2s", "500ms", "1h30m". A bare 0 means zero; any other number
// without a unit is an error. It also implements encoding.TextMarshaler and
// encoding.TextUnmarshaler, so it can be used with flag.TextVar.
type Duration time.Duration

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String formats d like time.Duration.String ("1m30s").
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler; errors say what a
// valid duration looks like.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := parseDuration(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalYAML writes d as a duration string.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML reads a scalar duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("expected a duration such as \"2s\", got %s", kindName(n))
	}
	return d.UnmarshalText([]byte(n.Value))
}

func parseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (want e.g. \"2s\", \"500ms\", \"1h\")", s)
	}
	return Duration(v), nil
}
