//===- Collectives.h - participants of compiled code as threads -*- C++ -*-===//
//
// This file declares the runtime side of the collective interface
// (RuntimeAbi.h) for participants that are threads of one process: each
// thread runs the same compiled graph under a ParticipantScope naming its
// number and the group it belongs to. At a collective, every participant
// publishes the address of its operand and waits for the others'; each
// then computes its own result straight from their buffers (no copy
// through the runtime), and they wait for one another again before any
// returns, so that no buffer is reused while another still reads it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_COLLECTIVES_H
#define KILN_RUNTIME_COLLECTIVES_H

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kiln {

/// The participants that run one graph together, one thread each.
class ParticipantGroup {
public:
  explicit ParticipantGroup(int participants) : participants(participants) {}
  int getSize() const { return participants; }

  /// Publishes `participant`'s operand of collective number `sequence` and
  /// waits for every participant's; none if the group was aborted.
  const std::vector<const void *> *arrive(uint64_t sequence, int participant,
                                          const void *operand);
  /// Waits until every participant is done reading collective `sequence`.
  void depart(uint64_t sequence);
  /// Wakes and fails every waiting and later collective (a participant
  /// failed, and the others must not wait for it).
  void abort();

private:
  struct Slot {
    std::vector<const void *> operands;
    int arrived = 0;
    int departed = 0;
    int released = 0;
  };
  int participants;
  std::mutex mutex;
  std::condition_variable changed;
  std::map<uint64_t, Slot> slots;
  bool aborted = false;
};

/// While alive, compiled code called on this thread is participant
/// `participant` of `group` (none: the only participant).
class ParticipantScope {
public:
  ParticipantScope(ParticipantGroup *group, int participant);
  ~ParticipantScope();
  /// What went wrong in a collective (a group that needs more
  /// participants than run, an aborted group); empty if nothing.
  static std::string takeError();
};

/// The address of each collective function, by name.
std::vector<std::pair<const char *, void *>> getCollectiveRuntimeSymbols();


} // namespace kiln

#endif // KILN_RUNTIME_COLLECTIVES_H
