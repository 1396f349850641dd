// Package cli holds the command-line plumbing that cmd/bloomcrawl and
// cmd/bloomcrawl-lab share: usage errors (exit status 2), flag sets that
// report errors instead of exiting, and the list flags and JSON-lines output
// of their subcommands, the registry and listing of subcommands, and main's
// signal context. It knows nothing of what the commands do.
package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// UsageError marks an error caused by bad command-line input; the commands
// exit with status 2 on it.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError with the formatted message.
func Usagef(format string, a ...any) error { return UsageError{fmt.Sprintf(format, a...)} }

// NewFlagSet returns a FlagSet for subcommand name of program prog that
// reports errors instead of exiting, and prints "usage: prog usage" and the
// flags to stderr.
func NewFlagSet(prog, name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s %s\n\nflags:\n", prog, usage)
		fs.PrintDefaults()
	}
	return fs
}

// ParseFlags parses args into fs. Parse errors become a UsageError; -h
// returns flag.ErrHelp (exit 0).
func ParseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return UsageError{err.Error()}
	}
	return nil
}

// WantArgs returns a UsageError unless there are n args: "unexpected
// argument" naming the first for n = 0, else "want what, got N arguments".
func WantArgs(args []string, n int, what string) error {
	if len(args) != n {
		if n == 0 {
			return Usagef("unexpected argument %q", args[0])
		}
		return Usagef("want %s, got %d arguments", what, len(args))
	}
	return nil
}

// ParseInterspersed parses args into fs as ParseFlags does, letting flags
// come before, between and after the arguments; it returns the arguments
// in order.
func ParseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := ParseFlags(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// StringList is a repeatable string flag: each use appends its value.
type StringList []string

func (s *StringList) String() string     { return strings.Join(*s, ",") }
func (s *StringList) Set(v string) error { *s = append(*s, v); return nil }

// SplitList returns the comma-separated items of s, trimmed, empty ones
// left out.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// FloatList returns the numbers of the comma-separated list s (SplitList),
// each in [lo, hi]; a UsageError names flag and the item that is not.
func FloatList(flag, s string, lo, hi float64) ([]float64, error) {
	var out []float64
	for _, p := range SplitList(s) {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || !(v >= lo && v <= hi) {
			return nil, Usagef("%s: %q is not a number in [%g, %g]", flag, p, lo, hi)
		}
		out = append(out, v)
	}
	return out, nil
}

// WriteJSONLines writes each row as one line of JSON.
func WriteJSONLines[T any](w io.Writer, rows []T) error {
	enc := json.NewEncoder(w)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes v as indented JSON (a command's --json output).
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
