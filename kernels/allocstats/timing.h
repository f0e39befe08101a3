// Included by kernels/allocstats.cu inside its anonymous namespace: one
// translation unit, one library (see the list of sections there).
// ---- Timing kernels on the GPU ----
//
// Each launch (and each cudaGraphLaunch, as one span) on a stream that
// is not being captured into a graph is bracketed by two events of the
// library's own (recorded through the
// runtime's real functions, so that the program's counts of event records
// and waits do not see them): the start event completes when the stream
// reaches the kernel, the end event when the kernel is done. An event
// recorded on a stream orders nothing new (the stream already runs its work
// in order), so the program's streams run as they would without them.
// Pairs are read as they complete (when many are pending, and at exit or
// before cudaDeviceReset), as spans on one clock: milliseconds from the
// first timed launch. At exit the spans give the span, the busy time, the
// most streams running kernels at one instant and the time they overlapped.

// The events are made, recorded and read with mu free (see Lock): mu is
// held only to take events from the spare ones and to hand pairs to, and
// take them from, the pending ones.

// takeEvent is a spare event, or null when there is none; mu is held.
cudaEvent_t takeEvent() {
    if (spare->empty()) return nullptr;
    cudaEvent_t e = spare->back();
    spare->pop_back();
    return e;
}

// makeEvent makes an event of the library's; mu is not held.
cudaEvent_t makeEvent() {
    static auto create = (cudaError_t(*)(cudaEvent_t*, unsigned int))real("cudaEventCreateWithFlags");
    Own own;
    Relaxed relaxed;
    cudaEvent_t e = nullptr;
    return create(&e, cudaEventDefault) == cudaSuccess ? e : nullptr;
}

// giveBack keeps an event for another launch; mu is held.
void giveBack(cudaEvent_t e) {
    if (e != nullptr) spare->push_back(e);
}

// harvest reads the pending pairs that have completed into spans, the
// oldest first. Without wait it stops at the first that has not completed;
// with wait it waits for each, up to 2 s in all (kernels a program left
// running at its exit, and did not wait for, are not timed). mu is not
// held: the pairs are taken out of pending under it, read without it, and
// what is left goes back in front of the pending ones.
void harvest(bool wait) {
    static auto query = (EventQueryFn)real("cudaEventQuery");
    static auto elapsed = (ElapsedFn)real("cudaEventElapsedTime");
    std::deque<Timed> batch;
    cudaEvent_t o;
    {
        std::lock_guard<Lock> g(mu);
        if (pending->empty() || origin == nullptr) return;
        batch.swap(*pending);
        o = origin;
    }
    std::deque<Timed> left;
    std::vector<Span> got;
    std::vector<cudaEvent_t> done;
    std::vector<TlRan> ran;  // for the trace (timeline.h)
    {
        Own own;
        KeepLastError keep;
        Relaxed relaxed;
        uint64_t deadline = nowNanos() + 2000000000u;
        // Every span is timed from the origin: nothing is read before it
        // has completed (its stream may be behind the others').
        cudaError_t q0 = query(o);
        while (wait && q0 == cudaErrorNotReady && nowNanos() < deadline) {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, nullptr);
            q0 = query(o);
        }
        if (q0 == cudaErrorNotReady) {
            left.swap(batch);
        }
        while (!batch.empty()) {
            Timed t = batch.front();
            cudaError_t q = query(t.end);
            while (wait && q == cudaErrorNotReady && nowNanos() < deadline) {
                struct timespec ts = {0, 100000};
                nanosleep(&ts, nullptr);
                q = query(t.end);
            }
            if (q == cudaErrorNotReady && !wait) break;
            batch.pop_front();
            if (q == cudaErrorNotReady) { left.push_back(t); continue; }
            float a = 0, b = 0;
            bool read = q == cudaSuccess && elapsed(&a, o, t.start) == cudaSuccess && elapsed(&b, o, t.end) == cudaSuccess;
            if (read) got.push_back(Span{t.stream, a, b, t.graph});
            if (tlOn) ran.push_back(TlRan{t.start, t.stream, a, b, read});
            done.push_back(t.start);
            done.push_back(t.end);
        }
        for (auto& t : batch) left.push_back(t);
    }
    std::lock_guard<Lock> g(mu);
    for (auto& sp : got)
        if (spans->size() < kMaxSpans) spans->push_back(sp);
    tlSpans(ran);
    for (cudaEvent_t e : done) giveBack(e);
    for (auto& t : *pending) left.push_back(t);
    pending->swap(left);
    if (spans->size() >= kMaxSpans) timingOver = true;
}

// harvestDue: enough pairs are pending to read them.
bool harvestDue() {
    std::lock_guard<Lock> g(mu);
    record();
    return pending->size() >= kReadAt;
}

// startTiming records the start event of a launch about to be made on
// stream s, unless s is capturing (a graph's kernels run when the graph is
// launched; an event recorded into a capture would become a node of it).
// The first pair is preceded by the origin, recorded by the thread that
// claimed it; another thread's launch before it is recorded is not timed.
// mu is not held.
Timed startTiming(cudaStream_t s, bool graph) {
    static auto recordEv = (EventRecordFn)real("cudaEventRecord");
    static auto isCapturing = (cudaError_t(*)(cudaStream_t, cudaStreamCaptureStatus*))real("cudaStreamIsCapturing");
    Timed t{s, nullptr, nullptr, graph};
    if (busy()) return t;
    {
        Own own;
        KeepLastError keep;
        cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
        if (isCapturing(s, &st) != cudaSuccess || st != cudaStreamCaptureStatusNone) {
            t.captured = true;
            return t;
        }
    }
    if (harvestDue()) harvest(false);
    bool makeOrigin = false;
    {
        std::lock_guard<Lock> g(mu);
        if (timingOver || pending->size() >= kMaxPending) return t;
        if (origin == nullptr) {
            if (originClaimed) return t;
            originClaimed = makeOrigin = true;
        }
        t.start = takeEvent();
        t.end = takeEvent();
    }
    Own own;
    KeepLastError keep;
    bool ok = true, originOK = false;
    cudaEvent_t o = nullptr;
    if (makeOrigin) {
        o = makeEvent();
        ok = originOK = o != nullptr && recordEv(o, s) == cudaSuccess;
    }
    if (ok && t.start == nullptr) t.start = makeEvent();
    if (ok && t.end == nullptr) t.end = makeEvent();
    ok = ok && t.start != nullptr && t.end != nullptr && recordEv(t.start, s) == cudaSuccess;
    std::lock_guard<Lock> g(mu);
    if (makeOrigin) {
        if (originOK) { origin = o; tlOrigin(); }
        else { giveBack(o); originClaimed = false; }
    }
    if (!ok) {
        giveBack(t.start);
        giveBack(t.end);
        t.start = t.end = nullptr;
    }
    return t;
}

// endTiming records the end event of a launch (launched: it was made) and
// hands the pair to the pending ones; mu is not held.
void endTiming(const Timed& t, bool launched) {
    static auto recordEv = (EventRecordFn)real("cudaEventRecord");
    if (t.start == nullptr) return;
    bool ok = false;
    if (launched) {
        Own own;
        KeepLastError keep;
        ok = recordEv(t.end, t.stream) == cudaSuccess;
    }
    std::lock_guard<Lock> g(mu);
    if (ok) {
        pending->push_back(t);
        return;
    }
    giveBack(t.start);
    giveBack(t.end);
}

// summarise turns the spans into the record's figures (harvest(true)
// has read the pending ones); mu is held.
void summarise() {
    if (spans->empty()) return;
    double first = (*spans)[0].start, last = (*spans)[0].end, busy = 0;
    std::unordered_map<cudaStream_t, double> perStream;
    // The spans' ends and starts in time order, an end before a start at
    // the same instant (kernels that only touch do not overlap).
    struct Edge { double t; int delta; cudaStream_t s; };
    std::vector<Edge> edges;
    edges.reserve(2 * spans->size());
    for (auto& sp : *spans) {
        double end = sp.end < sp.start ? sp.start : sp.end;
        first = sp.start < first ? sp.start : first;
        last = end > last ? end : last;
        busy += end - sp.start;
        perStream[norm(sp.stream)] += end - sp.start;
        edges.push_back(Edge{sp.start, +1, norm(sp.stream)});
        edges.push_back(Edge{end, -1, norm(sp.stream)});
    }
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t != b.t ? a.t < b.t : a.delta < b.delta; });
    std::unordered_map<cudaStream_t, int> running;
    uint64_t streamsNow = 0, most = 0;
    double overlap = 0, prev = edges.empty() ? 0 : edges[0].t;
    for (auto& e : edges) {
        if (streamsNow >= 2) overlap += e.t - prev;
        prev = e.t;
        int& n = running[e.s];
        if (e.delta > 0 && n++ == 0) streamsNow++;
        if (e.delta < 0 && --n == 0) streamsNow--;
        if (streamsNow > most) most = streamsNow;
    }
    double streamMax = 0;
    for (auto& kv : perStream) streamMax = kv.second > streamMax ? kv.second : streamMax;
    auto ns = [](double ms) { return ms <= 0 ? (uint64_t)0 : (uint64_t)(ms * 1e6 + 0.5); };
    uint64_t graphs = 0;
    for (auto& sp : *spans) graphs += sp.graph ? 1 : 0;
    rec->kernels_timed = spans->size() - graphs;
    rec->graphs_timed = graphs;
    rec->max_concurrent_streams = most;
    rec->kernel_span_ns = ns(last - first);
    rec->kernel_busy_ns = ns(busy);
    rec->stream_kernel_ns_max = ns(streamMax);
    rec->kernel_overlap_ns = ns(overlap);
}
