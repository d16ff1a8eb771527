//===- RuntimeFunctions.h - what compiled code calls in the runtime -*- C++ -*-===//
//
// This file declares the table of the functions of RuntimeAbi.h, by name,
// which the runtime links compiled code against.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_RUNTIMEFUNCTIONS_H
#define KILN_RUNTIME_RUNTIMEFUNCTIONS_H

#include <utility>
#include <vector>

namespace kiln {

/// The address of every function of RuntimeAbi.h, by name: collectives,
/// random bits, special functions.
std::vector<std::pair<const char *, void *>> getRuntimeSymbols();

} // namespace kiln

#endif // KILN_RUNTIME_RUNTIMEFUNCTIONS_H
