package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
)

// The command-line conventions every command follows (cobra, gh, kubectl):
// -o/--output FILE is always a file, --out DIR always a directory; --format
// takes one vocabulary per output kind, validated and completed; --print
// says what a command prints (table, wide, json); an unknown
// subcommand is an error with a suggestion; pflag's own errors are
// rewritten in the one-line style of the others.

// Output kinds and their --format vocabularies.
var (
	// resultsFormats are the files run writes under --out (comma-separated).
	resultsFormats = []string{"csv", "json", "html"}
	// documentFormats are the renderings of one document written to
	// standard output or -o FILE: text for people, json for programs, html
	// for a page.
	documentFormats = []string{"text", "json", "html"}
)

// bindOutput adds -o/--output FILE.
func bindOutput(f *pflag.FlagSet, p *string, usage string) {
	f.StringVarP(p, "output", "o", "", usage)
}

// bindFormat adds --format with its vocabulary, completed in the shell.
func bindFormat(cmd *cobra.Command, p *string, def string, allowed []string, usage string) {
	cmd.Flags().StringVar(p, "format", def, usage+": "+orList(allowed))
	_ = cmd.RegisterFlagCompletionFunc("format", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeList(allowed, toComplete)
	})
}

// checkFormat validates one --format value against its vocabulary.
func checkFormat(format string, allowed []string) error {
	if !slices.Contains(allowed, format) {
		return badInputf("--format %q: want %s", format, orList(allowed))
	}
	return nil
}

// documentFormat is the --format of a document: as given, else from the
// extension of -o FILE (.json, .html), else text.
func documentFormat(format, output string) (string, error) {
	if format == "" {
		switch strings.ToLower(filepath.Ext(output)) {
		case ".json":
			format = "json"
		case ".html", ".htm":
			format = "html"
		default:
			format = "text"
		}
	}
	return format, checkFormat(format, documentFormats)
}

func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// completeList completes one element of a comma-separated list of words.
func completeList(words []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	done, last := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		done, last = toComplete[:i+1], toComplete[i+1:]
	}
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, last) {
			out = append(out, done+w)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// requireSubcommand makes every command that only groups subcommands (and
// the completion command cobra adds) refuse an unknown one with exit 2 and
// a suggestion, instead of printing help and exiting 0. Without arguments
// it prints its help.
func requireSubcommand(c *cobra.Command) {
	for _, sub := range c.Commands() {
		requireSubcommand(sub)
	}
	if !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		return unknownCommand(cmd, args[0])
	}
}

func unknownCommand(cmd *cobra.Command, name string) error {
	var names []string
	for _, s := range cmd.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's default, set only on its own path
	}
	if sug := cmd.SuggestionsFor(name); len(sug) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", sug[0])
	} else {
		msg += " (known: " + strings.Join(names, ", ") + ")"
	}
	return badInput(errors.New(msg))
}

// newHelpCmd is cobra's help command, except that an unknown topic is an
// unknown command (exit 2, with a suggestion) rather than the root's help.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			cmd, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, s := range cmd.Commands() {
				if s.IsAvailableCommand() && strings.HasPrefix(s.Name(), toComplete) {
					out = append(out, s.Name())
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil {
				return badInput(err)
			}
			if len(rest) > 0 {
				return unknownCommand(cmd, rest[0])
			}
			return cmd.Help()
		},
	}
}

var (
	invalidArgRE = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([\w-]+)" flag: `)
	unknownRE    = regexp.MustCompile(`^unknown (?:shorthand )?flag: (.+)$`)
)

// flagError rewrites pflag's own errors ("invalid argument "-1" for
// "--seed" flag: strconv.ParseUint: parsing "-1": invalid syntax") in the
// project's style: the flag, the value, and what is wanted.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if m := invalidArgRE.FindStringSubmatch(msg); m != nil {
		want := "a valid value"
		if f := cmd.Flags().Lookup(m[2]); f != nil {
			want = wantOfType(f.Value.Type())
		}
		return badInputf("--%s %q: want %s", m[2], m[1], want)
	}
	if m := unknownRE.FindStringSubmatch(msg); m != nil {
		return badInputf("unknown flag %s for %q (see %s --help)", m[1], cmd.CommandPath(), cmd.CommandPath())
	}
	return badInput(err)
}

func wantOfType(t string) string {
	switch t {
	case "uint64", "uint", "uint32":
		return "a whole number from 0 up"
	case "int", "int64", "int32":
		return "a whole number"
	case "float64", "float32":
		return "a number"
	case "bool":
		return "true or false"
	case "duration":
		return "a duration such as 500ms or 2s"
	case "intSlice":
		return "whole numbers, comma-separated"
	case "durationSlice":
		return "durations such as 10ms, comma-separated"
	case "stringArray", "stringSlice", "string":
		return "a value"
	}
	return "a valid " + t
}

// algoWords are what --algo accepts: all (every election algorithm),
// mutex (every mutual-exclusion algorithm), every algorithm and every
// name/variant.
func algoWords() []string {
	words := []string{"all", "mutex"}
	for _, name := range nodes.Names() {
		words = append(words, name)
		alg, _, err := nodes.Lookup(name)
		if err != nil {
			continue
		}
		for _, v := range alg.Variants {
			words = append(words, name+"/"+v.Name)
		}
	}
	return words
}

// completeWords completes a single word from a fixed list.
func completeWords(words ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, w := range words {
			if strings.HasPrefix(w, toComplete) {
				out = append(out, w)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeScenarios completes built-in scenario names, and file names.
func completeScenarios(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, n := range chaos.BuiltinNames() {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n+"\t"+chaos.BuiltinSummary(n))
		}
	}
	return out, cobra.ShellCompDirectiveDefault // files too
}

// completeBuiltins completes built-in scenario names only.
func completeBuiltins(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	out, _ := completeScenarios(cmd, args, toComplete)
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeDetector offers the detector forms with their defaults filled in.
func completeDetector(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	forms := []string{"perfect(10T)\tsuspects a crashed process D after the crash",
		"heartbeat(1T,3T)\tPING every P, suspect after τ of silence",
		"inaccurate(300,0,2T,20T)\tperfect plus false suspicions (λ per s, μ missed crashes, D, window W)"}
	var out []string
	for _, f := range forms {
		if strings.HasPrefix(f, toComplete) {
			out = append(out, f)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// printForms are what --print takes where a command prints a table or a
// list on standard output (run, list): the narrow table that fits
// the terminal, every column, or JSON for a program. It is not -o: -o is
// always a file.
var printForms = []string{"table", "wide", "json"}

// bindPrint adds --print with its vocabulary, completed in the shell.
func bindPrint(cmd *cobra.Command, p *string, what string) {
	cmd.Flags().StringVar(p, "print", "table", what+": table (fits the terminal, $COLUMNS), wide (every column) or json")
	_ = cmd.RegisterFlagCompletionFunc("print", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeList(printForms, toComplete)
	})
}

// checkPrint refuses a --print form no command prints.
func checkPrint(form string) error {
	if !slices.Contains(printForms, form) {
		return badInputf("--print %q: want %s", form, orList(printForms))
	}
	return nil
}

// termWidth is the width a table printed to out must fit: $COLUMNS when
// set, else the terminal's, else 0 (a file or a pipe: no limit).
func termWidth(out io.Writer) int {
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 0
}
