// The interface of a memory resource as RAPIDS RMM has it since 26.06,
// written again in plain CUDA C++17: a mirror, not RMM (the course builds
// and runs without RMM or CCCL, which the GPU machine does not have).
//
// RMM 26.06 removed its base class (device_memory_resource, with the
// virtual do_allocate/do_deallocate) and the old allocate(bytes, stream):
// a resource is now any type with the calls of CCCL's cuda::mr resource
// concept, and code that allocates takes a type-erased handle to one.
// What RMM and CCCL call them, and what this file calls them:
//
//   cuda::stream_ref                                  mr::stream_ref
//   cuda::mr::device_accessible (a property)          mr::device_accessible
//   cuda::mr::resource_with<T, device_accessible>     mr::is_resource<T>
//   cuda::mr::resource_ref<device_accessible>         mr::resource_ref
//     (rmm::device_async_resource_ref)                  (non-owning)
//   cuda::mr::any_resource<device_accessible>         mr::any_resource
//                                                       (owning, shared)
//   rmm::mr::cuda_async_memory_resource               mr::async_resource
//     (a pool of its own, its threshold the largest)     (the same)
//
// A resource has four calls: allocate(stream, bytes, alignment) and
// deallocate(stream, p, bytes, alignment), in stream order; and
// allocate_sync(bytes, alignment) and deallocate_sync(p, bytes,
// alignment) for callers without a stream. It compares with ==, and says
// that its memory is the device's with a get_property friend.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

namespace mr {

// RMM's default alignment: every allocation is aligned to 256 bytes.
constexpr std::size_t default_alignment = 256;

// check_alignment stops the program on an alignment RMM refuses: a power
// of two, at most 256 (larger ones need RMM's aligned adaptor).
inline void check_alignment(std::size_t alignment) {
    if (alignment == 0 || alignment > default_alignment || (alignment & (alignment - 1)) != 0) {
        fprintf(stderr, "alignment %zu: it must be a power of two, at most %zu\n", alignment, default_alignment);
        exit(1);
    }
}

// stream_ref names a stream without owning it.
class stream_ref {
public:
    stream_ref(cudaStream_t s) : s_(s) {}
    cudaStream_t get() const { return s_; }
    void sync() const { CHECK(cudaStreamSynchronize(s_)); }
    bool operator==(stream_ref o) const { return s_ == o.s_; }
    bool operator!=(stream_ref o) const { return s_ != o.s_; }

private:
    cudaStream_t s_;
};

// device_accessible: the property of memory that kernels can use.
struct device_accessible {};

// is_resource<T> says whether T has a resource's calls, with memory the
// device can use: the concept, as a C++17 trait.
template <class T, class = void>
struct is_resource : std::false_type {};
template <class T>
struct is_resource<T, std::void_t<
    decltype(static_cast<void*>(std::declval<T&>().allocate(std::declval<stream_ref>(), std::size_t{}, std::size_t{}))),
    decltype(std::declval<T&>().deallocate(std::declval<stream_ref>(), static_cast<void*>(nullptr), std::size_t{}, std::size_t{})),
    decltype(static_cast<void*>(std::declval<T&>().allocate_sync(std::size_t{}, std::size_t{}))),
    decltype(std::declval<T&>().deallocate_sync(static_cast<void*>(nullptr), std::size_t{}, std::size_t{})),
    decltype(bool(std::declval<const T&>() == std::declval<const T&>())),
    decltype(get_property(std::declval<const T&>(), device_accessible{}))>> : std::true_type {};

namespace detail {
// calls is how a handle reaches the resource behind it.
struct calls {
    void* (*allocate)(void*, stream_ref, std::size_t, std::size_t);
    void (*deallocate)(void*, stream_ref, void*, std::size_t, std::size_t);
    void* (*allocate_sync)(void*, std::size_t, std::size_t);
    void (*deallocate_sync)(void*, void*, std::size_t, std::size_t);
};

template <class T>
const calls* calls_of() {
    static const calls c{
        [](void* r, stream_ref s, std::size_t n, std::size_t a) { return static_cast<T*>(r)->allocate(s, n, a); },
        [](void* r, stream_ref s, void* p, std::size_t n, std::size_t a) { static_cast<T*>(r)->deallocate(s, p, n, a); },
        [](void* r, std::size_t n, std::size_t a) { return static_cast<T*>(r)->allocate_sync(n, a); },
        [](void* r, void* p, std::size_t n, std::size_t a) { static_cast<T*>(r)->deallocate_sync(p, n, a); },
    };
    return &c;
}

template <class T, class Self>
using if_resource = std::enable_if_t<!std::is_same<std::decay_t<T>, Self>::value && is_resource<std::decay_t<T>>::value, int>;
}  // namespace detail

// resource_ref is what code that allocates takes: any resource, not
// owned (the resource must outlive it). It is a resource itself.
class resource_ref {
public:
    template <class T, detail::if_resource<T, resource_ref> = 0>
    resource_ref(T& r) : r_(&r), c_(detail::calls_of<T>()) {}
    void* allocate(stream_ref s, std::size_t bytes, std::size_t alignment = default_alignment) const { return c_->allocate(r_, s, bytes, alignment); }
    void deallocate(stream_ref s, void* p, std::size_t bytes, std::size_t alignment = default_alignment) const noexcept { c_->deallocate(r_, s, p, bytes, alignment); }
    void* allocate_sync(std::size_t bytes, std::size_t alignment = default_alignment) const { return c_->allocate_sync(r_, bytes, alignment); }
    void deallocate_sync(void* p, std::size_t bytes, std::size_t alignment = default_alignment) const noexcept { c_->deallocate_sync(r_, p, bytes, alignment); }
    bool operator==(const resource_ref& o) const { return r_ == o.r_; }
    bool operator!=(const resource_ref& o) const { return r_ != o.r_; }
    friend void get_property(const resource_ref&, device_accessible) {}

private:
    void* r_;
    const detail::calls* c_;
};

// any_resource owns a copy of a resource, as a pool owns its upstream:
// copies of the any_resource share that one copy (RMM's resources share
// their state the same way since 26.06).
class any_resource {
public:
    template <class T, detail::if_resource<T, any_resource> = 0>
    any_resource(T r) : r_(std::make_shared<T>(std::move(r))), c_(detail::calls_of<T>()) {}
    void* allocate(stream_ref s, std::size_t bytes, std::size_t alignment = default_alignment) { return c_->allocate(r_.get(), s, bytes, alignment); }
    void deallocate(stream_ref s, void* p, std::size_t bytes, std::size_t alignment = default_alignment) noexcept { c_->deallocate(r_.get(), s, p, bytes, alignment); }
    void* allocate_sync(std::size_t bytes, std::size_t alignment = default_alignment) { return c_->allocate_sync(r_.get(), bytes, alignment); }
    void deallocate_sync(void* p, std::size_t bytes, std::size_t alignment = default_alignment) noexcept { c_->deallocate_sync(r_.get(), p, bytes, alignment); }
    bool operator==(const any_resource& o) const { return r_ == o.r_; }
    bool operator!=(const any_resource& o) const { return r_ != o.r_; }
    friend void get_property(const any_resource&, device_accessible) {}

private:
    std::shared_ptr<void> r_;
    const detail::calls* c_;
};

// async_resource is RMM's cuda_async_memory_resource: the driver's
// stream-ordered allocator on a pool of its own. It creates that pool
// (cudaMemPoolCreate, on the current device), allocates from it with
// cudaMallocFromPoolAsync and frees with cudaFreeAsync. The pool's release
// threshold is the largest there is unless the caller gives one, so the
// pool keeps what it has reserved across synchronisations (the device's
// default pool, at its threshold of 0, would hand it back to the driver
// at each). Copies share the pool, as RMM's resources share their state,
// and the last copy destroys it; two async_resources are equal only when
// they draw on the same pool, the one case where memory from one may be
// given back to the other.
class async_resource {
public:
    explicit async_resource(std::optional<std::uint64_t> release_threshold = std::nullopt)
        : pool_(make_pool(release_threshold)) {}

    void* allocate(stream_ref s, std::size_t bytes, std::size_t alignment = default_alignment) {
        check_alignment(alignment);
        void* p = nullptr;
        CHECK(cudaMallocFromPoolAsync(&p, bytes, pool_->handle, s.get()));
        return p;
    }
    void deallocate(stream_ref s, void* p, std::size_t, std::size_t = default_alignment) noexcept { CHECK(cudaFreeAsync(p, s.get())); }
    // The sync pair uses the default stream and waits for it, so the
    // memory is ready when allocate_sync returns; deallocate_sync wants
    // the work on the memory done before it is called.
    void* allocate_sync(std::size_t bytes, std::size_t alignment = default_alignment) {
        void* p = allocate(stream_ref{cudaStream_t{}}, bytes, alignment);
        CHECK(cudaStreamSynchronize(cudaStream_t{}));
        return p;
    }
    void deallocate_sync(void* p, std::size_t bytes, std::size_t alignment = default_alignment) noexcept {
        deallocate(stream_ref{cudaStream_t{}}, p, bytes, alignment);
    }
    // pool_handle is the pool this resource (and its copies) allocate from.
    cudaMemPool_t pool_handle() const { return pool_->handle; }
    bool operator==(const async_resource& o) const { return pool_->handle == o.pool_->handle; }
    bool operator!=(const async_resource& o) const { return !(*this == o); }
    friend void get_property(const async_resource&, device_accessible) {}

private:
    // pool owns the handle: destroyed with the last copy of the resource.
    // (cudaMemPoolDestroy of a pool whose allocations are not all freed
    // returns at once; the driver releases the pool when they are.)
    struct pool {
        cudaMemPool_t handle = nullptr;
        pool() = default;
        pool(const pool&) = delete;
        pool& operator=(const pool&) = delete;
        ~pool() {
            if (handle != nullptr) cudaMemPoolDestroy(handle);
        }
    };
    std::shared_ptr<pool> pool_;

    static std::shared_ptr<pool> make_pool(std::optional<std::uint64_t> release_threshold) {
        int device = 0;
        CHECK(cudaGetDevice(&device));
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypeNone;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        auto p = std::make_shared<pool>();
        CHECK(cudaMemPoolCreate(&p->handle, &props));
        std::uint64_t threshold = release_threshold.value_or(UINT64_MAX);
        CHECK(cudaMemPoolSetAttribute(p->handle, cudaMemPoolAttrReleaseThreshold, &threshold));
        return p;
    }
};

static_assert(is_resource<async_resource>::value, "async_resource has a resource's calls");
static_assert(is_resource<resource_ref>::value && is_resource<any_resource>::value, "the handles are resources too");

}  // namespace mr
