//===- Collectives.cpp - participants of compiled code as threads -*- C++
//-*-===//
//
// The runtime functions that compiled collectives call (RuntimeAbi.h),
// for participants that are threads of this process. Results follow HLO:
// all_reduce and reduce_scatter combine the group's operands in group
// order (bf16 and f16 rounded after each step, as their reducer would),
// all_gather concatenates in group order, all_to_all sends the k-th block
// to the k-th member, collective_permute copies from the source whose pair
// targets this participant (zeros if none), collective_broadcast copies
// the group's first member.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Collectives.h"
#include "kiln/Interpreter/CollectiveGroups.h"
#include "kiln/Runtime/RuntimeAbi.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace kiln;
using namespace kiln::runtime_abi;

const std::vector<const void *> *ParticipantGroup::arrive(uint64_t sequence,
                                                          int participant,
                                                          const void *operand) {
  std::unique_lock<std::mutex> lock(mutex);
  Slot &slot = slots[sequence];
  if (slot.operands.empty())
    slot.operands.assign(participants, nullptr);
  slot.operands[participant] = operand;
  if (++slot.arrived == participants)
    changed.notify_all();
  changed.wait(lock, [&] { return aborted || slot.arrived == participants; });
  return aborted ? nullptr : &slot.operands;
}

void ParticipantGroup::depart(uint64_t sequence) {
  std::unique_lock<std::mutex> lock(mutex);
  Slot &slot = slots[sequence];
  if (++slot.departed == participants)
    changed.notify_all();
  changed.wait(lock, [&] { return aborted || slot.departed == participants; });
  if (++slot.released == participants)
    slots.erase(sequence);
}

void ParticipantGroup::abort() {
  std::lock_guard<std::mutex> lock(mutex);
  aborted = true;
  changed.notify_all();
}

namespace {

/// Who this thread is in compiled code's collectives.
struct ParticipantContext {
  ParticipantGroup *group = nullptr;
  int participant = 0;
  uint64_t nextCollective = 0;
  std::string error;
};
thread_local ParticipantContext context;

float bf16ToFloat(uint16_t bits) {
  uint32_t wide = (uint32_t)bits << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

uint16_t floatToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (std::isnan(value))
    return (uint16_t)((bits >> 16) | 0x40); // quiet, sign and payload kept
  bits += 0x7fff + ((bits >> 16) & 1);      // round to nearest even
  return (uint16_t)(bits >> 16);
}

/// How elements of a storage type are read and written for combining.
template <typename Storage> struct Element {
  using Compute = Storage;
  static Compute load(const char *at) {
    Storage value;
    std::memcpy(&value, at, sizeof(Storage));
    return value;
  }
  static void store(char *at, Compute value) {
    std::memcpy(at, &value, sizeof(Storage));
  }
};
struct Bf16Element {
  using Compute = float;
  static float load(const char *at) {
    uint16_t bits;
    std::memcpy(&bits, at, 2);
    return bf16ToFloat(bits);
  }
  static void store(char *at, float value) {
    uint16_t bits = floatToBf16(value);
    std::memcpy(at, &bits, 2);
  }
};
#ifdef __FLT16_MAX__
struct F16Element {
  using Compute = float;
  static float load(const char *at) {
    _Float16 value;
    std::memcpy(&value, at, 2);
    return (float)value;
  }
  static void store(char *at, float value) {
    _Float16 narrow = (_Float16)value;
    std::memcpy(at, &narrow, 2);
  }
};
#endif

template <typename T> T combine(Reduction reduction, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (reduction) {
    case Reduction::Add:
      return a + b;
    case Reduction::Multiply:
      return a * b;
    case Reduction::Maximum:
      return std::isnan(a) ? a : std::isnan(b) ? b : std::max(a, b);
    case Reduction::Minimum:
      return std::isnan(a) ? a : std::isnan(b) ? b : std::min(a, b);
    default:
      return a;
    }
  } else {
    using Wide = std::make_unsigned_t<T>;
    switch (reduction) {
    case Reduction::Add: // wraps, as HLO's integers do
      return (T)((Wide)a + (Wide)b);
    case Reduction::Multiply:
      return (T)((Wide)a * (Wide)b);
    case Reduction::Maximum:
      return std::max(a, b);
    case Reduction::Minimum:
      return std::min(a, b);
    case Reduction::And:
      return a & b;
    case Reduction::Or:
      return a | b;
    case Reduction::Xor:
      return a ^ b;
    default:
      return a;
    }
  }
}

/// out[o][j] = combine over members m of in[m][o * inStride + inOffset + j],
/// for o < outer, j < count (element indices of `bytes` each).
template <typename E>
void reduceBlocks(char *out, const std::vector<const char *> &in,
                  Reduction reduction, int64_t bytes, int64_t outer,
                  int64_t count, int64_t inStride, int64_t inOffset) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < count; ++j) {
      int64_t from = (o * inStride + inOffset + j) * bytes;
      auto value = E::load(in[0] + from);
      for (size_t m = 1; m < in.size(); ++m)
        value = combine(reduction, value, E::load(in[m] + from));
      E::store(out + (o * count + j) * bytes, value);
    }
}

/// reduceBlocks for the element kind; false if the runtime cannot.
bool reduceBlocks(ElementKind element, char *out,
                  const std::vector<const char *> &in, Reduction reduction,
                  int64_t outer, int64_t count, int64_t inStride,
                  int64_t inOffset) {
  int64_t bytes = getElementBytes(element);
  auto run = [&](auto tag) {
    reduceBlocks<decltype(tag)>(out, in, reduction, bytes, outer, count,
                                inStride, inOffset);
    return true;
  };
  switch (element) {
  case ElementKind::F32:
    return run(Element<float>());
  case ElementKind::F64:
    return run(Element<double>());
  case ElementKind::BF16:
    return run(Bf16Element());
  case ElementKind::F16:
#ifdef __FLT16_MAX__
    return run(F16Element());
#else
    return false;
#endif
  case ElementKind::S8:
    return run(Element<int8_t>());
  case ElementKind::S16:
    return run(Element<int16_t>());
  case ElementKind::S32:
    return run(Element<int32_t>());
  case ElementKind::S64:
    return run(Element<int64_t>());
  case ElementKind::U8:
    return run(Element<uint8_t>());
  case ElementKind::U16:
    return run(Element<uint16_t>());
  case ElementKind::U32:
    return run(Element<uint32_t>());
  case ElementKind::U64:
    return run(Element<uint64_t>());
  case ElementKind::Pred:
    // Booleans: a sum is an or, a product an and.
    if (reduction == Reduction::Add)
      reduction = Reduction::Or;
    else if (reduction == Reduction::Multiply)
      reduction = Reduction::And;
    return run(Element<uint8_t>());
  case ElementKind::NarrowInteger:
  case ElementKind::C64:
  case ElementKind::C128:
    return false;
  }
  return false;
}

/// Fails the collective: the output is zeros and the error is kept for
/// the caller of the compiled code; the other participants are released.
void fail(char *out, int64_t outBytes, std::string message) {
  std::memset(out, 0, outBytes);
  if (context.error.empty())
    context.error = std::move(message);
  if (context.group)
    context.group->abort();
}

extern "C" void kiln_rt_collective(int64_t kindCode, int64_t reductionCode,
                                   int64_t elementCode, int64_t inputAddress,
                                   int64_t outputAddress, int64_t outer,
                                   int64_t extent, int64_t resultExtent,
                                   int64_t inner, int64_t groupsAddress,
                                   int64_t groupCount, int64_t groupSize) {
  auto kind = (CollectiveKind)kindCode;
  auto reduction = (Reduction)reductionCode;
  auto element = (ElementKind)elementCode;
  const char *input = reinterpret_cast<const char *>(inputAddress);
  char *output = reinterpret_cast<char *>(outputAddress);
  const int64_t *groups = reinterpret_cast<const int64_t *>(groupsAddress);
  int64_t bytes = getElementBytes(element);
  int64_t outBytes = outer * resultExtent * inner * bytes;
  int size = context.group ? context.group->getSize() : 1;
  int me = context.participant;
  uint64_t sequence = context.nextCollective++;

  // Every participant meets at every collective, in program order.
  std::vector<const char *> operands(1, input);
  if (context.group) {
    const std::vector<const void *> *all =
        context.group->arrive(sequence, me, input);
    if (!all)
      return fail(output, outBytes,
                  "another participant failed at a collective");
    operands.assign(all->size(), nullptr);
    for (size_t p = 0; p < all->size(); ++p)
      operands[p] = static_cast<const char *>((*all)[p]);
  }
  auto finish = [&] {
    if (context.group)
      context.group->depart(sequence);
  };
  auto operandOf = [&](int64_t participant) -> const char * {
    return context.group ? operands[participant] : input;
  };

  // Every participant the groups (a permute's pairs) name must run; the
  // error says how many.
  int64_t highest = -1;
  int64_t ids =
      kind == CollectiveKind::Permute ? 2 * groupCount : groupCount * groupSize;
  for (int64_t i = 0; i < ids; ++i)
    highest = std::max(highest, groups[i]);
  if (highest >= size) {
    fail(output, outBytes,
         interp::describeTooFewParticipants(highest, size,
                                            kind == CollectiveKind::Permute));
    return finish();
  }

  if (kind == CollectiveKind::Permute) {
    std::memset(output, 0, outBytes);
    for (int64_t pair = 0; pair < groupCount; ++pair) {
      int64_t source = groups[2 * pair], target = groups[2 * pair + 1];
      if (target != me)
        continue;
      if (source < 0) {
        fail(output, outBytes,
             "collective_permute receives from participant " +
                 std::to_string(source));
        return finish();
      }
      std::memcpy(output, operandOf(source), outBytes);
    }
    return finish();
  }

  // This participant's group, in order.
  std::vector<int64_t> members;
  if (groupCount == 0) {
    for (int p = 0; p < size; ++p)
      members.push_back(p);
  } else {
    for (int64_t row = 0; row < groupCount && members.empty(); ++row) {
      const int64_t *begin = groups + row * groupSize;
      if (std::find(begin, begin + groupSize, me) == begin + groupSize)
        continue;
      for (const int64_t *id = begin; id != begin + groupSize; ++id)
        if (*id >= 0)
          members.push_back(*id);
    }
  }
  // StableHLO's collective_broadcast gives zeros outside every group.
  if (members.empty() && kind == CollectiveKind::Broadcast && groupCount > 0) {
    std::memset(output, 0, outBytes);
    return finish();
  }
  if (members.empty()) {
    fail(output, outBytes,
         "participant " + std::to_string(me) + " is in no replica group");
    return finish();
  }
  int64_t n = members.size();
  int64_t position =
      std::find(members.begin(), members.end(), me) - members.begin();
  std::vector<const char *> in;
  for (int64_t member : members)
    in.push_back(operandOf(member));
  auto mismatch = [&] {
    fail(output, outBytes,
         "a collective's result does not fit a group of " + std::to_string(n) +
             " participants");
  };

  switch (kind) {
  case CollectiveKind::AllReduce:
    if (extent != resultExtent) {
      mismatch();
      break;
    }
    if (!reduceBlocks(element, output, in, reduction, 1, outer * extent * inner,
                      0, 0))
      fail(output, outBytes, "this element type is not reduced");
    break;
  case CollectiveKind::ReduceScatter: {
    if (resultExtent * n != extent) {
      mismatch();
      break;
    }
    if (!reduceBlocks(element, output, in, reduction, outer,
                      resultExtent * inner, extent * inner,
                      position * resultExtent * inner))
      fail(output, outBytes, "this element type is not reduced");
    break;
  }
  case CollectiveKind::AllGather:
    if (extent * n != resultExtent) {
      mismatch();
      break;
    }
    for (int64_t m = 0; m < n; ++m)
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(output + ((o * resultExtent + m * extent) * inner) * bytes,
                    in[m] + (o * extent * inner) * bytes,
                    extent * inner * bytes);
    break;
  case CollectiveKind::AllToAll: {
    if (extent != resultExtent || extent % n != 0) {
      mismatch();
      break;
    }
    int64_t chunk = extent / n;
    for (int64_t m = 0; m < n; ++m)
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(output + ((o * extent + m * chunk) * inner) * bytes,
                    in[m] + ((o * extent + position * chunk) * inner) * bytes,
                    chunk * inner * bytes);
    break;
  }
  case CollectiveKind::Broadcast:
    std::memcpy(output, in[0], outBytes);
    break;
  default:
    fail(output, outBytes, "unknown collective");
  }
  finish();
}

extern "C" int64_t kiln_rt_participant() { return context.participant; }

} // namespace

ParticipantScope::ParticipantScope(ParticipantGroup *group, int participant) {
  context = ParticipantContext();
  context.group = group;
  context.participant = participant;
}

ParticipantScope::~ParticipantScope() { context = ParticipantContext(); }

std::string ParticipantScope::takeError() {
  std::string error = std::move(context.error);
  context.error.clear();
  return error;
}

std::vector<std::pair<const char *, void *>>
kiln::getCollectiveRuntimeSymbols() {
  return {
      {kCollectiveFunction, reinterpret_cast<void *>(&kiln_rt_collective)},
      {kParticipantFunction, reinterpret_cast<void *>(&kiln_rt_participant)}};
}
