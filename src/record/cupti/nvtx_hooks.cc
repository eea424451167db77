#include "src/record/cupti/nvtx_hooks.h"

#include <atomic>
#include <string>
#include <type_traits>

#include "src/record/cupti/clock.h"

namespace decodeprof::record::cupti {
namespace {

std::atomic<NvtxCollector*> g_collector{nullptr};

// Registered strings are handed out as pointers to strings that live as long as the process.
nvtxStringHandle_t ToHandle(const std::string* s) {
  return reinterpret_cast<nvtxStringHandle_t>(const_cast<std::string*>(s));
}

std::string Utf8(const wchar_t* text) {
  std::string out;
  if (text == nullptr) return out;
  for (; *text != 0; ++text) {
    const auto c = static_cast<uint32_t>(static_cast<std::make_unsigned_t<wchar_t>>(*text));
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x110000) {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

std::string Message(const nvtxEventAttributes_t* attr) {
  if (attr == nullptr) return {};
  switch (attr->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return attr->message.ascii != nullptr ? attr->message.ascii : "";
    case NVTX_MESSAGE_TYPE_UNICODE:
      return Utf8(attr->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return attr->message.registered != nullptr
                 ? *reinterpret_cast<const std::string*>(attr->message.registered)
                 : "";
    default:
      return {};
  }
}

NvtxDomain DomainOf(nvtxDomainHandle_t domain) {
  return domain != nullptr ? reinterpret_cast<NvtxDomain>(domain) : NvtxCollector::DefaultDomain();
}

NvtxCollector* Collector() { return g_collector.load(std::memory_order_acquire); }

// ---- core (default domain) ----
void MarkEx(const nvtxEventAttributes_t* attr) {
  if (NvtxCollector* c = Collector()) {
    c->Mark(NvtxCollector::DefaultDomain(), Message(attr), MonotonicNs(), ThreadId());
  }
}
void MarkA(const char* message) {
  if (NvtxCollector* c = Collector()) {
    c->Mark(NvtxCollector::DefaultDomain(), message != nullptr ? message : "", MonotonicNs(),
            ThreadId());
  }
}
void MarkW(const wchar_t* message) {
  if (NvtxCollector* c = Collector()) {
    c->Mark(NvtxCollector::DefaultDomain(), Utf8(message), MonotonicNs(), ThreadId());
  }
}
nvtxRangeId_t RangeStartEx(const nvtxEventAttributes_t* attr) {
  NvtxCollector* c = Collector();
  return c != nullptr
             ? c->Start(NvtxCollector::DefaultDomain(), Message(attr), MonotonicNs(), ThreadId())
             : 0;
}
nvtxRangeId_t RangeStartA(const char* message) {
  NvtxCollector* c = Collector();
  return c != nullptr ? c->Start(NvtxCollector::DefaultDomain(), message != nullptr ? message : "",
                                 MonotonicNs(), ThreadId())
                      : 0;
}
nvtxRangeId_t RangeStartW(const wchar_t* message) {
  NvtxCollector* c = Collector();
  return c != nullptr
             ? c->Start(NvtxCollector::DefaultDomain(), Utf8(message), MonotonicNs(), ThreadId())
             : 0;
}
void RangeEnd(nvtxRangeId_t id) {
  const int64_t now = MonotonicNs();
  if (NvtxCollector* c = Collector()) c->End(id, now);
}
int RangePushEx(const nvtxEventAttributes_t* attr) {
  NvtxCollector* c = Collector();
  return c != nullptr
             ? c->Push(NvtxCollector::DefaultDomain(), Message(attr), MonotonicNs(), ThreadId())
             : -1;
}
int RangePushA(const char* message) {
  NvtxCollector* c = Collector();
  return c != nullptr ? c->Push(NvtxCollector::DefaultDomain(), message != nullptr ? message : "",
                                MonotonicNs(), ThreadId())
                      : -1;
}
int RangePushW(const wchar_t* message) {
  NvtxCollector* c = Collector();
  return c != nullptr
             ? c->Push(NvtxCollector::DefaultDomain(), Utf8(message), MonotonicNs(), ThreadId())
             : -1;
}
int RangePop() {
  const int64_t now = MonotonicNs();
  NvtxCollector* c = Collector();
  return c != nullptr ? c->Pop(NvtxCollector::DefaultDomain(), now, ThreadId()) : -1;
}
void NameCategoryA(uint32_t, const char*) {}
void NameCategoryW(uint32_t, const wchar_t*) {}
void NameOsThreadA(uint32_t, const char*) {}
void NameOsThreadW(uint32_t, const wchar_t*) {}

// ---- core2 (domains) ----
void DomainMarkEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attr) {
  if (NvtxCollector* c = Collector()) {
    c->Mark(DomainOf(domain), Message(attr), MonotonicNs(), ThreadId());
  }
}
nvtxRangeId_t DomainRangeStartEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attr) {
  NvtxCollector* c = Collector();
  return c != nullptr ? c->Start(DomainOf(domain), Message(attr), MonotonicNs(), ThreadId()) : 0;
}
void DomainRangeEnd(nvtxDomainHandle_t, nvtxRangeId_t id) { RangeEnd(id); }
int DomainRangePushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attr) {
  NvtxCollector* c = Collector();
  return c != nullptr ? c->Push(DomainOf(domain), Message(attr), MonotonicNs(), ThreadId()) : -1;
}
int DomainRangePop(nvtxDomainHandle_t domain) {
  const int64_t now = MonotonicNs();
  NvtxCollector* c = Collector();
  return c != nullptr ? c->Pop(DomainOf(domain), now, ThreadId()) : -1;
}
nvtxResourceHandle_t DomainResourceCreate(nvtxDomainHandle_t, nvtxResourceAttributes_t*) {
  return nullptr;
}
void DomainResourceDestroy(nvtxResourceHandle_t) {}
void DomainNameCategoryA(nvtxDomainHandle_t, uint32_t, const char*) {}
void DomainNameCategoryW(nvtxDomainHandle_t, uint32_t, const wchar_t*) {}
// Registered strings live in the (never destroyed) collector: NVTX has no unregister.
nvtxStringHandle_t DomainRegisterStringA(nvtxDomainHandle_t, const char* text) {
  NvtxCollector* c = Collector();
  return c != nullptr ? ToHandle(c->RegisterString(text != nullptr ? text : "")) : nullptr;
}
nvtxStringHandle_t DomainRegisterStringW(nvtxDomainHandle_t, const wchar_t* text) {
  NvtxCollector* c = Collector();
  return c != nullptr ? ToHandle(c->RegisterString(Utf8(text))) : nullptr;
}
nvtxDomainHandle_t DomainCreateA(const char* name) {
  NvtxCollector* c = Collector();
  if (c == nullptr) return nullptr;
  return reinterpret_cast<nvtxDomainHandle_t>(
      const_cast<std::string*>(c->Domain(name != nullptr ? name : "")));
}
nvtxDomainHandle_t DomainCreateW(const wchar_t* name) {
  NvtxCollector* c = Collector();
  if (c == nullptr) return nullptr;
  return reinterpret_cast<nvtxDomainHandle_t>(const_cast<std::string*>(c->Domain(Utf8(name))));
}
void DomainDestroy(nvtxDomainHandle_t) {}
void Initialize(const void*) {}

template <typename Fn>
void Set(NvtxFunctionTable table, unsigned int size, unsigned int id, Fn fn) {
  if (id < size && table[id] != nullptr) *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

}  // namespace

int InstallNvtxHooks(NvtxGetExportTableFunc_t get_export_table, NvtxCollector* collector) {
  if (get_export_table == nullptr || collector == nullptr) return 0;
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr) {
    return 0;
  }
  g_collector.store(collector, std::memory_order_release);
  NvtxFunctionTable t = nullptr;
  unsigned int n = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n) == 0 || t == nullptr) {
    return 0;
  }
  Set(t, n, NVTX_CBID_CORE_MarkEx, MarkEx);
  Set(t, n, NVTX_CBID_CORE_MarkA, MarkA);
  Set(t, n, NVTX_CBID_CORE_MarkW, MarkW);
  Set(t, n, NVTX_CBID_CORE_RangeStartEx, RangeStartEx);
  Set(t, n, NVTX_CBID_CORE_RangeStartA, RangeStartA);
  Set(t, n, NVTX_CBID_CORE_RangeStartW, RangeStartW);
  Set(t, n, NVTX_CBID_CORE_RangeEnd, RangeEnd);
  Set(t, n, NVTX_CBID_CORE_RangePushEx, RangePushEx);
  Set(t, n, NVTX_CBID_CORE_RangePushA, RangePushA);
  Set(t, n, NVTX_CBID_CORE_RangePushW, RangePushW);
  Set(t, n, NVTX_CBID_CORE_RangePop, RangePop);
  Set(t, n, NVTX_CBID_CORE_NameCategoryA, NameCategoryA);
  Set(t, n, NVTX_CBID_CORE_NameCategoryW, NameCategoryW);
  Set(t, n, NVTX_CBID_CORE_NameOsThreadA, NameOsThreadA);
  Set(t, n, NVTX_CBID_CORE_NameOsThreadW, NameOsThreadW);
  // Core2 (domains) came with NVTX v2; an instance without it still has the core.
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n) != 0 && t != nullptr) {
    Set(t, n, NVTX_CBID_CORE2_DomainMarkEx, DomainMarkEx);
    Set(t, n, NVTX_CBID_CORE2_DomainRangeStartEx, DomainRangeStartEx);
    Set(t, n, NVTX_CBID_CORE2_DomainRangeEnd, DomainRangeEnd);
    Set(t, n, NVTX_CBID_CORE2_DomainRangePushEx, DomainRangePushEx);
    Set(t, n, NVTX_CBID_CORE2_DomainRangePop, DomainRangePop);
    Set(t, n, NVTX_CBID_CORE2_DomainResourceCreate, DomainResourceCreate);
    Set(t, n, NVTX_CBID_CORE2_DomainResourceDestroy, DomainResourceDestroy);
    Set(t, n, NVTX_CBID_CORE2_DomainNameCategoryA, DomainNameCategoryA);
    Set(t, n, NVTX_CBID_CORE2_DomainNameCategoryW, DomainNameCategoryW);
    Set(t, n, NVTX_CBID_CORE2_DomainRegisterStringA, DomainRegisterStringA);
    Set(t, n, NVTX_CBID_CORE2_DomainRegisterStringW, DomainRegisterStringW);
    Set(t, n, NVTX_CBID_CORE2_DomainCreateA, DomainCreateA);
    Set(t, n, NVTX_CBID_CORE2_DomainCreateW, DomainCreateW);
    Set(t, n, NVTX_CBID_CORE2_DomainDestroy, DomainDestroy);
    Set(t, n, NVTX_CBID_CORE2_Initialize, Initialize);
  }
  return 1;
}

}  // namespace decodeprof::record::cupti
