package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/bloomcrawl/bloomcrawl/seen"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

func init() {
	register(command{
		name:    "seen",
		summary: "per-key seen-records (seed 001): add, test, show, delete ids a consumer was shown",
		run:     runSeen,
	})
}

// seenFlags adds the seen-record options to fs (prefix "" or "seen-") and
// returns a function giving the Options after parsing.
func seenFlags(fs *flag.FlagSet, prefix string) func() (seen.Options, error) {
	capacity := fs.Int(prefix+"capacity", seen.DefaultCapacity, "seen-records: ids per Bloom block")
	fp := fs.Float64(prefix+"fp", seen.DefaultFP, "seen-records: false-positive rate of a block at capacity")
	blocks := fs.Int(prefix+"blocks", seen.DefaultBlocks, "seen-records: most blocks per key (the last (blocks-1)*capacity ids are always remembered)")
	ttl := fs.Duration(prefix+"ttl", seen.DefaultTTL, "seen-records: a key's record expires this long after its last write")
	audit := fs.Bool(prefix+"audit", false, "seen-records: also keep the plain ids of each key's last blocks*capacity adds (debugging)")
	return func() (seen.Options, error) {
		o := seen.Options{Capacity: *capacity, FP: *fp, Blocks: *blocks, TTL: *ttl, Audit: *audit}
		if err := o.Validate(); err != nil {
			return o, usagef("--%s...: %v", prefix, err)
		}
		return o, nil
	}
}

func runSeen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("seen", "seen --store DIR [flags] add|test|show|delete KEY [ID...]   (no IDs: one per line on stdin)", stderr)
	store := fs.String("store", "", "store directory (created if missing; required)")
	asJSON := fs.Bool("json", false, "print JSON")
	seedForm := fs.Bool("seed-form", false, "show: print each block as the seed stores it, count::base64(bits)")
	opts := seenFlags(fs, "")
	// Flags may come before or after the action and key.
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if *store == "" {
		return usagef("--store DIR is required")
	}
	if len(pos) < 2 {
		return usagef("want an action (add, test, show, delete) and a KEY")
	}
	action, key, ids := pos[0], pos[1], pos[2:]
	o, err := opts()
	if err != nil {
		return err
	}
	switch action {
	case "add", "test":
		if len(ids) == 0 {
			if ids, err = readIDs(os.Stdin); err != nil {
				return err
			}
		}
		if len(ids) == 0 {
			return usagef("%s: no ids (give them as arguments or one per line on stdin)", action)
		}
	case "show", "delete":
		if len(ids) > 0 {
			return usagef("%s takes only a KEY; unexpected %q", action, ids[0])
		}
	default:
		return usagef("unknown action %q (want add, test, show or delete)", action)
	}

	db, err := storage.Open(*store, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	recs, err := seen.New(db, &o)
	if err != nil {
		return err
	}
	if err := recs.CheckKey(key); err != nil {
		return usagef("%v", err)
	}
	out := func(v any) error {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	switch action {
	case "add":
		var total seen.AddResult
		for chunk := range slices.Chunk(ids, o.WithDefaults().MaxIDs) {
			res, err := recs.Add(ctx, key, chunk)
			if err != nil {
				return err
			}
			total.Added += res.Added
			total.Blocks = res.Blocks
		}
		if *asJSON {
			return out(map[string]any{"key": key, "ids": len(ids), "added": total.Added, "blocks": total.Blocks})
		}
		fmt.Fprintf(stdout, "%s: recorded %d ids (%d new to the newest block); %d blocks\n", key, len(ids), total.Added, total.Blocks)
	case "test":
		seenIDs, newIDs := []string{}, []string{}
		for chunk := range slices.Chunk(ids, o.WithDefaults().MaxIDs) {
			got, err := recs.Test(ctx, key, chunk)
			if err != nil {
				return err
			}
			for i, id := range chunk {
				if got[i] {
					seenIDs = append(seenIDs, id)
				} else {
					newIDs = append(newIDs, id)
				}
				if !*asJSON {
					fmt.Fprintf(stdout, "%s\t%s\n", map[bool]string{true: "seen", false: "new"}[got[i]], id)
				}
			}
		}
		if *asJSON {
			return out(map[string]any{"seen": seenIDs, "new": newIDs})
		}
	case "show":
		rec, err := recs.Show(ctx, key, *seedForm)
		if err != nil {
			return err
		}
		if *asJSON {
			return out(rec)
		}
		if len(rec.Blocks) == 0 {
			fmt.Fprintf(stdout, "%s: no record\n", key)
			return nil
		}
		expires := "never"
		if e := rec.Expires; e != nil {
			expires = fmt.Sprintf("%s (in %s)", e.UTC().Format(time.RFC3339), time.Until(*e).Round(time.Second))
		}
		fmt.Fprintf(stdout, "%s: %d blocks, %d bytes stored, expires %s\n", key, len(rec.Blocks), rec.Bytes, expires)
		for i, b := range rec.Blocks {
			fmt.Fprintf(stdout, "  block %d: %d ids, %d bits (%d set), k=%d, predicted FP %.2g\n", i, b.Count, b.Bits, b.SetBits, b.K, b.PredictedFP)
			if b.Seed != "" {
				fmt.Fprintf(stdout, "    %s\n", b.Seed)
			}
		}
		if rec.Audit != nil {
			fmt.Fprintf(stdout, "  audit (%d ids, oldest first): %s\n", len(rec.Audit), strings.Join(rec.Audit, " "))
		}
	case "delete":
		existed, err := recs.Delete(ctx, key)
		if err != nil {
			return err
		}
		if *asJSON {
			return out(map[string]any{"key": key, "deleted": existed})
		}
		if existed {
			fmt.Fprintf(stdout, "%s: deleted\n", key)
		} else {
			fmt.Fprintf(stdout, "%s: no record\n", key)
		}
	}
	return nil
}

// readIDs reads one id per line (blank lines skipped, spaces trimmed).
func readIDs(r io.Reader) ([]string, error) {
	var ids []string
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		if id := strings.TrimSpace(sc.Text()); id != "" {
			ids = append(ids, id)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read ids from stdin: %w", err)
	}
	return ids, nil
}
