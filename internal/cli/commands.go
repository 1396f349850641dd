package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"
)

// Command is one subcommand of a program.
type Command struct {
	Name    string // as typed on the command line
	Summary string // one line for the usage listing
	// Run executes the subcommand with its own arguments (without the
	// subcommand name). It returns a UsageError for bad flags or arguments.
	Run func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// Register adds c to m under name; it panics if name is taken (prog names
// the program in the message). Programs call it from init, once per
// subcommand's file.
func Register[C any](m map[string]C, prog, name string, c C) {
	if _, dup := m[name]; dup {
		panic(prog + ": command registered twice: " + name)
	}
	m[name] = c
}

// WriteList writes one line per entry of m, sorted by name: two spaces,
// the name padded to width, a space and summary(entry).
func WriteList[C any](w io.Writer, m map[string]C, width int, summary func(C) string) {
	for _, n := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(w, "  %-*s %s\n", width, n, summary(m[n]))
	}
}

// WriteUsage writes a program's usage: "usage: prog <command> [flags]
// [args]", its commands (WriteList, names padded to width) and how to see a
// command's flags.
func WriteUsage[C any](w io.Writer, prog string, m map[string]C, width int, summary func(C) string) {
	fmt.Fprintf(w, "usage: %s <command> [flags] [args]\n\ncommands:\n", prog)
	WriteList(w, m, width, summary)
	fmt.Fprintf(w, "\nRun '%s <command> -h' for a command's flags.\n", prog)
}

// Lookup finds the subcommand that args[0] names in m. With no arguments,
// or -h, --help or help, it writes usage to stdout and returns exit code 2
// (no arguments) or 0; for a name m lacks it writes "prog: unknown command"
// and usage to stderr and returns 2. ok says c was found (code is then 0).
func Lookup[C any](m map[string]C, prog string, args []string, stdout, stderr io.Writer, usage func(io.Writer)) (c C, code int, ok bool) {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return c, 2, false
		}
		return c, 0, false
	}
	c, ok = m[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n", prog, args[0])
		usage(stderr)
		return c, 2, false
	}
	return c, 0, true
}

// ExitCode maps the error of subcommand name of program prog to its exit
// code, and says what went wrong on stderr as "prog name: err": 0 for nil
// and flag.ErrHelp (nothing written), 2 for a UsageError, 130 for
// context.Canceled ("interrupted"), 1 otherwise. A program with more codes
// checks for them first.
func ExitCode(prog, name string, err error, stderr io.Writer) int {
	var ue UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s %s: %v\n", prog, name, err)
		return 2
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "%s %s: interrupted\n", prog, name)
		return 130
	default:
		fmt.Fprintf(stderr, "%s %s: %v\n", prog, name, err)
		return 1
	}
}

// Main runs run with the process's arguments (without the program name)
// and standard streams under a context that the first SIGINT or SIGTERM
// cancels (a second one ends the process at once), and exits with the code
// run returns.
func Main(run func(ctx context.Context, args []string, stdout, stderr io.Writer) int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, restore the default handler so that a
		// second Ctrl-C terminates the process at once.
		<-ctx.Done()
		stop()
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}
