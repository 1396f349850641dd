package console

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/crawler"
)

// steerView is the steer page's data.
type steerView struct {
	State      string
	Exclusions []crawler.Exclusion
	Actions    []action // newest first
}

func (c *Console) steerPage(w http.ResponseWriter, r *http.Request) {
	if c.o.Crawl == nil {
		c.fail(w, http.StatusNotFound, errors.New("no crawl is running here: steering needs crawl --serve"))
		return
	}
	v := steerView{State: c.o.Crawl.State(), Exclusions: c.o.Crawl.Exclusions()}
	c.actMu.Lock()
	v.Actions = slices.Clone(c.actions)
	c.actMu.Unlock()
	slices.Reverse(v.Actions)
	c.render(w, r, "steer", "Steer", v)
}

// steer runs one action: pause, resume, stop, exclude (form field
// pattern) or include (pattern: remove the exclusion). The answer is a
// short HTML fragment for htmx (HX-Request), else a redirect back to the
// page the form was on with the answer in ?msg=.
func (c *Console) steer(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		c.fail(w, http.StatusForbidden, errors.New("steering requests must come from the console's own pages"))
		return
	}
	if c.o.Crawl == nil {
		c.fail(w, http.StatusNotFound, errors.New("no crawl is running here: steering needs crawl --serve"))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		c.fail(w, http.StatusBadRequest, err)
		return
	}
	cr := c.o.Crawl
	pattern := strings.TrimSpace(r.PostForm.Get("pattern"))
	var what, result string
	var err error
	switch act := r.PathValue("action"); act {
	case "pause":
		what = "pause"
		cr.Pause()
		result = "paused: no new fetch starts; " + fmt.Sprint(cr.InFlight()) + " in flight finishing"
	case "resume":
		what = "resume"
		cr.Resume()
		result = "resumed"
	case "stop":
		what = "stop"
		cr.Stop()
		result = "stopping: fetches in flight finish, the rest stays queued; run the same crawl command again to resume"
	case "exclude":
		what = "exclude " + pattern
		if err = cr.AddExclusion(pattern); err == nil {
			result = "excluded: queued and new URLs matching " + pattern + " are not fetched (kept in the store)"
		}
	case "include":
		what = "remove exclusion " + pattern
		var found bool
		if found, err = cr.RemoveExclusion(pattern); err == nil {
			result = "exclusion removed: URLs matching " + pattern + " are fetched again"
			if !found {
				err = fmt.Errorf("no exclusion %q in force", pattern)
			}
		}
	default:
		c.fail(w, http.StatusNotFound, fmt.Errorf("no action %q (pause, resume, stop, exclude, include)", act))
		return
	}
	c.record(what, result, err)
	msg, isErr := result, err != nil
	if isErr {
		msg = what + ": " + err.Error()
	}
	if r.Header.Get("HX-Request") == "true" {
		// 200 either way: htmx swaps in only successful answers
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<p class="msg%s" role="status">%s</p>`, map[bool]string{true: " err"}[isErr], template.HTMLEscapeString(msg))
		return
	}
	back := "/console/steer"
	if ref, err := url.Parse(r.Referer()); err == nil && ref.Host == r.Host && strings.HasPrefix(ref.Path, "/") {
		back = ref.Path
	}
	q := url.Values{"msg": {msg}}
	if isErr {
		q.Set("err", "1")
	}
	http.Redirect(w, r, back+"?"+q.Encode(), http.StatusSeeOther)
}

// clusterView is the cluster page's data.
type clusterView struct {
	Report *cluster.Report
	Err    string
}

func (c *Console) clusterPage(w http.ResponseWriter, r *http.Request) {
	if c.o.ClusterURL == "" {
		c.fail(w, http.StatusNotFound, errors.New("this crawl is not a cluster node (--cluster)"))
		return
	}
	var v clusterView
	rep, err := cluster.Inspect(r.Context(), c.o.ClusterURL, c.o.ClusterPrefix)
	if err != nil {
		v.Err = err.Error()
	}
	v.Report = rep
	c.render(w, r, "cluster", "Cluster", v)
}
