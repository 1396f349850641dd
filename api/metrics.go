package api

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics is one handler's Prometheus instrumentation, on a registry of its
// own (never the global one, so two handlers in one process, or tests, do
// not collide).
type metrics struct {
	reg          *prometheus.Registry
	requests     *prometheus.CounterVec   // route, method, code
	latency      *prometheus.HistogramVec // route, method
	inFlight     prometheus.Gauge
	unauthorized prometheus.Counter
	documents    *prometheus.CounterVec // filter_status, reason
}

func newMetrics(h *handler) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bloomcrawl_api_requests_total",
		Help: "HTTP requests answered, by route pattern, method and status code.",
	}, []string{"route", "method", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "bloomcrawl_api_request_duration_seconds",
		Help:    "Time to answer an HTTP request, by route pattern and method.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route", "method"})
	m.inFlight = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "bloomcrawl_api_requests_in_flight",
		Help: "HTTP requests being answered now.",
	})
	m.unauthorized = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "bloomcrawl_api_unauthorized_total",
		Help: "Requests refused for a missing or wrong bearer token.",
	})
	m.documents = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bloomcrawl_api_documents_total",
		Help: `Documents answered by POST /v1/docid and /v1/docid:batch, by filterStatus ("good", "duplicate", "error") and filterReason ("new", "url", "title", "content"; "" for errors).`,
	}, []string{"filter_status", "reason"})
	m.reg.MustRegister(m.requests, m.latency, m.inFlight, m.unauthorized, m.documents,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if h.svc != nil {
		svc := h.svc
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "bloomcrawl_dedup_index_documents",
			Help: "Documents in the in-memory dedup index.",
		}, func() float64 { return float64(svc.Len()) }))
	}
	if h.db != nil {
		m.reg.MustRegister(&storeCollector{h: h})
	}
	m.reg.MustRegister(h.o.Collectors...)
	return m
}

// handler serves the registry in the Prometheus exposition format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// instrument wraps next with the request counter, latency histogram and
// in-flight gauge, labelled with route (the pattern's path, not the request
// path, so that docIds do not explode the label set).
func (m *metrics) instrument(route string, next http.Handler) http.Handler {
	l := prometheus.Labels{"route": route}
	return promhttp.InstrumentHandlerInFlight(m.inFlight,
		promhttp.InstrumentHandlerDuration(m.latency.MustCurryWith(l),
			promhttp.InstrumentHandlerCounter(m.requests.MustCurryWith(l), next)))
}

// observeUnrouted counts a request that matched no route.
func (m *metrics) observeUnrouted(code int) {
	m.requests.WithLabelValues("unmatched", "other", strconv.Itoa(code)).Inc()
}

func (m *metrics) observeVerdict(r Response) {
	if r.Status != StatusSuccess {
		m.documents.WithLabelValues(StatusError, "").Inc()
		return
	}
	m.documents.WithLabelValues(r.FilterStatus, r.FilterReason).Inc()
}

// storeCollector reports the store's counts and its size on disk when
// Prometheus scrapes, read through the handler's statsCache.
type storeCollector struct{ h *handler }

var (
	descStorePages      = prometheus.NewDesc("bloomcrawl_store_pages", "Documents stored (one per docId).", nil, nil)
	descStoreURLs       = prometheus.NewDesc("bloomcrawl_store_urls", "URLs recorded, each mapped to its docId or to an error.", nil, nil)
	descStoreDuplicates = prometheus.NewDesc("bloomcrawl_store_duplicates", "URLs recorded as near-duplicates of a stored document.", nil, nil)
	descStoreHosts      = prometheus.NewDesc("bloomcrawl_store_hosts", "Hosts with at least one stored document.", nil, nil)
	descStoreBytes      = prometheus.NewDesc("bloomcrawl_store_size_bytes", "Badger's LSM and value-log size on disk.", nil, nil)
	descStoreUp         = prometheus.NewDesc("bloomcrawl_store_up", "1 if the last read of the store's statistics succeeded.", nil, nil)
	descStoreFree       = prometheus.NewDesc("bloomcrawl_store_free_bytes", "Free space on the store's filesystem (available to this process), read at each scrape.", nil, nil)
	descStoreNeed       = prometheus.NewDesc("bloomcrawl_store_min_free_bytes", "Free space below which the store refuses writes and the process stops: the reserve plus the memtables to flush at close.", nil, nil)
)

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descStorePages, descStoreURLs, descStoreDuplicates, descStoreHosts, descStoreBytes, descStoreUp, descStoreFree, descStoreNeed} {
		ch <- d
	}
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.read() {
		ch <- s
	}
}

func (c *storeCollector) read() []prometheus.Metric {
	gauge := func(d *prometheus.Desc, v float64) prometheus.Metric {
		return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
	}
	var space []prometheus.Metric
	if sp, err := c.h.db.Space(); err == nil {
		space = append(space, gauge(descStoreFree, float64(sp.Free)))
		if sp.Reserve >= 0 {
			space = append(space, gauge(descStoreNeed, float64(sp.Need())))
		}
	}
	st, err := c.h.statsCache.Get()
	if err != nil {
		c.h.o.Logger.Error("metrics: store stats", "err", err)
		return append(space, gauge(descStoreUp, 0))
	}
	return append(space,
		gauge(descStoreUp, 1),
		gauge(descStorePages, float64(st.Pages)),
		gauge(descStoreURLs, float64(st.URLs)),
		gauge(descStoreDuplicates, float64(st.Duplicates)),
		gauge(descStoreHosts, float64(st.Hosts)),
		gauge(descStoreBytes, float64(st.DiskBytes)),
	)
}
