package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/internal/cli"
	"github.com/bloomcrawl/bloomcrawl/seen"
)

func init() {
	register(command{
		Name:    "seen",
		Summary: "per-key seen-records: add, test, show, delete ids a consumer was shown",
		Run:     runSeen,
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

// seenRun is one parsed 'bloomcrawl seen' invocation.
type seenRun struct {
	action, key string
	cluster     string // --cluster: the records in this Redis
	ids         []string
	opts        seen.Options
	asJSON      bool
	seedForm    bool
	recs        *seen.Records
	stdout      io.Writer
}

func runSeen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	r, store, err := parseSeenArgs(args, stderr)
	if err != nil {
		return err
	}
	r.stdout = stdout
	st, closeStore, err := seen.OpenStore(ctx, store, r.cluster)
	if err != nil {
		return err
	}
	defer closeStore()
	if r.recs, err = seen.New(st, &r.opts); err != nil {
		return err
	}
	if err := r.recs.CheckKey(r.key); err != nil {
		return usagef("%v", err)
	}
	switch r.action {
	case "add":
		return r.add(ctx)
	case "test":
		return r.test(ctx)
	case "show":
		return r.show(ctx)
	default:
		return r.delete(ctx)
	}
}

// parseSeenArgs parses the flags (before or after the action and key),
// checks the action and reads the ids from stdin when none are given.
func parseSeenArgs(args []string, stderr io.Writer) (*seenRun, string, error) {
	fs := newFlagSet("seen", "seen --store DIR | --cluster URL [flags] add|test|show|delete KEY [ID...]   (no IDs: one per line on stdin)", stderr)
	store := fs.String("store", "", "store directory (created if missing)")
	clusterURL := fs.String("cluster", "", "instead of --store: the records in the Redis of a cluster crawl, redis://HOST:PORT/DB or redis+cluster://HOST:PORT (see docs/cluster.md)")
	asJSON := fs.Bool("json", false, "print JSON")
	seedForm := fs.Bool("seed-form", false, "show: print each block as the seed stores it, count::base64(bits)")
	opts := seenFlags(fs, "")
	pos, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return nil, "", err
	}
	if (*store == "") == (*clusterURL == "") {
		return nil, "", usagef("want --store DIR or --cluster URL (the records in Redis, shared by a cluster's nodes), one of them")
	}
	if len(pos) < 2 {
		return nil, "", usagef("want an action (add, test, show, delete) and a KEY")
	}
	r := &seenRun{action: pos[0], key: pos[1], ids: pos[2:], asJSON: *asJSON, seedForm: *seedForm, cluster: *clusterURL}
	if r.opts, err = opts(); err != nil {
		return nil, "", err
	}
	switch r.action {
	case "add", "test":
		if len(r.ids) == 0 {
			if r.ids, err = readIDs(os.Stdin); err != nil {
				return nil, "", err
			}
		}
		if len(r.ids) == 0 {
			return nil, "", usagef("%s: no ids (give them as arguments or one per line on stdin)", r.action)
		}
	case "show", "delete":
		if len(r.ids) > 0 {
			return nil, "", usagef("%s takes only a KEY; unexpected %q", r.action, r.ids[0])
		}
	default:
		return nil, "", usagef("unknown action %q (want add, test, show or delete)", r.action)
	}
	return r, *store, nil
}

func (r *seenRun) add(ctx context.Context) error {
	total, err := r.recs.AddAll(ctx, r.key, r.ids)
	if err != nil {
		return err
	}
	if r.asJSON {
		return cli.WriteJSON(r.stdout, map[string]any{"key": r.key, "ids": len(r.ids), "added": total.Added, "blocks": total.Blocks})
	}
	fmt.Fprintf(r.stdout, "%s: recorded %d ids (%d new to the newest block); %d blocks\n", r.key, len(r.ids), total.Added, total.Blocks)
	return nil
}

func (r *seenRun) test(ctx context.Context) error {
	got, err := r.recs.TestAll(ctx, r.key, r.ids)
	if err != nil {
		return err
	}
	if r.asJSON {
		return cli.WriteJSON(r.stdout, seen.SplitIDs(r.ids, got))
	}
	for i, id := range r.ids {
		fmt.Fprintf(r.stdout, "%s\t%s\n", map[bool]string{true: "seen", false: "new"}[got[i]], id)
	}
	return nil
}

func (r *seenRun) show(ctx context.Context) error {
	rec, err := r.recs.Show(ctx, r.key, r.seedForm)
	if err != nil {
		return err
	}
	if r.asJSON {
		return cli.WriteJSON(r.stdout, rec)
	}
	rec.WriteText(r.stdout)
	return nil
}

func (r *seenRun) delete(ctx context.Context) error {
	existed, err := r.recs.Delete(ctx, r.key)
	if err != nil {
		return err
	}
	if r.asJSON {
		return cli.WriteJSON(r.stdout, map[string]any{"key": r.key, "deleted": existed})
	}
	if existed {
		fmt.Fprintf(r.stdout, "%s: deleted\n", r.key)
	} else {
		fmt.Fprintf(r.stdout, "%s: no record\n", r.key)
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
