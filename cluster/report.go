package cluster

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report as `bloomcrawl query --cluster URL stats`
// shows it: the summed counters, a table of the nodes and one of the
// partitions. It returns the first write error.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "pages\t%d\n", r.Total.Pages)
	fmt.Fprintf(tw, "stored\t%d\n", r.Total.Stored)
	fmt.Fprintf(tw, "duplicates\t%d\n", r.Total.Duplicates)
	fmt.Fprintf(tw, "errors\t%d\n", r.Total.Errors)
	fmt.Fprintf(tw, "urls\t%d queued cluster-wide, %d done\n", r.URLs, r.URLsDone)
	if r.RefreshScheduled > 0 || r.Total.Refreshed > 0 {
		// a continuous crawl
		fmt.Fprintf(tw, "refresh schedule\t%d URLs, %d due\n", r.RefreshScheduled, r.RefreshDue)
		fmt.Fprintf(tw, "refreshed\t%d\n", r.Total.Refreshed)
		fmt.Fprintf(tw, "not_modified\t%d\n", r.Total.NotModified)
		fmt.Fprintf(tw, "changed\t%d\n", r.Total.Changed)
		fmt.Fprintf(tw, "behind_schedule\t%d\n", r.Total.BehindSchedule)
	}
	fmt.Fprintf(tw, "\nNODE\tSTATE\tPAGES\tSTORED\tDUPLICATES\tERRORS\tURLS\tPARTITIONS\n")
	for _, n := range r.Nodes {
		state := n.State
		if n.Live {
			state += ", live"
		} else if n.State == "running" {
			state += fmt.Sprintf(", silent %.0fs", float64(n.SilentMs)/1000)
			if n.SilentMs < 0 {
				state = "running, no heartbeat"
			}
		}
		parts := make([]string, len(n.Partitions))
		for i, p := range n.Partitions {
			parts[i] = fmt.Sprint(p)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", n.Name, state, n.Pages, n.Stored, n.Duplicates, n.Errors, n.URLs, strings.Join(parts, ","))
	}
	fmt.Fprintf(tw, "\nPARTITION\tOWNER\tLEASE LEFT\tQUEUE\tPENDING\tQUEUED\tDONE\n")
	for _, p := range r.Partitions {
		owner, left := p.Owner, fmt.Sprintf("%.1fs", float64(p.LeaseTTLMs)/1000)
		if owner == "" {
			owner, left = "-", "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d\t%d\n", p.Partition, owner, left, p.Length, p.Pending, p.Queued, p.Done)
	}
	return tw.Flush()
}
