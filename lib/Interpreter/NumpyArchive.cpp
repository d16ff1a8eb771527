//===- NumpyArchive.cpp - host tensors as .npy and .npz files ---*- C++ -*-===//
//
// This file implements NumPy's `.npy` format (version 1.0) and the `.npz`
// archive around it: a zip file whose members are stored (method 0), each
// with its CRC-32, followed by the central directory.
//
//===----------------------------------------------------------------------===//

#include "kiln/Interpreter/NumpyArchive.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace kiln::interp;

namespace {

/// NumPy's name for the element type as written, and its width in bytes.
std::pair<std::string, unsigned> numpyType(Type element) {
  if (auto complex = dyn_cast<ComplexType>(element))
    return complex.getElementType().isF64() ? std::pair("<c16", 16u)
                                            : std::pair("<c8", 8u);
  if (element.isF64())
    return {"<f8", 8};
  if (element.isF16())
    return {"<f2", 2};
  if (isa<FloatType>(element))
    return {"<f4", 4}; // f32, and bf16 and f8 widened
  IntegerType integer = storageIntegerType(element);
  unsigned width = integer.getWidth();
  if (width == 1)
    return {"|b1", 1};
  unsigned bytes = width <= 8 ? 1 : width <= 16 ? 2 : width <= 32 ? 4 : 8;
  std::string code = (isUnsignedInteger(element) ? "u" : "i") +
                     std::to_string(bytes);
  return {(bytes == 1 ? "|" : "<") + code, bytes};
}

template <typename T> void append(std::string &out, T value) {
  char bytes[sizeof(T)];
  llvm::support::endian::write<T, llvm::endianness::little>(bytes, value);
  out.append(bytes, sizeof(T));
}

} // namespace

std::string kiln::interp::encodeNpy(const HostTensor &tensor) {
  Type element = tensor.elementType();
  auto [descr, bytes] = numpyType(element);
  std::string shape = "(";
  for (int64_t size : tensor.shape())
    shape += std::to_string(size) + ", ";
  if (tensor.shape().size() > 1)
    shape.erase(shape.size() - 2); // "(2, 3)", but "(4, )" -> "(4,)"
  else if (tensor.shape().size() == 1)
    shape.erase(shape.size() - 1);
  shape += ")";
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', a multiple of 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  append<uint16_t>(out, header.size());
  out += header;
  for (int64_t i = 0; i < tensor.size(); ++i) {
    switch (tensor.kind) {
    case ElementKind::Float:
      if (bytes == 8)
        append<double>(out, tensor.floats[i]);
      else if (bytes == 2)
        append<uint16_t>(out, tensor.bitsAt(i).getZExtValue());
      else
        append<float>(out, (float)tensor.floats[i]);
      break;
    case ElementKind::Complex:
      if (bytes == 16) {
        append<double>(out, tensor.complexes[i].real());
        append<double>(out, tensor.complexes[i].imag());
      } else {
        append<float>(out, (float)tensor.complexes[i].real());
        append<float>(out, (float)tensor.complexes[i].imag());
      }
      break;
    case ElementKind::Integer: {
      uint64_t value = (uint64_t)tensor.ints[i];
      for (unsigned b = 0; b < bytes; ++b)
        out += (char)((value >> (8 * b)) & 0xff);
      break;
    }
    case ElementKind::Token:
      break;
    }
  }
  return out;
}

llvm::Error kiln::interp::writeNumpyFile(
    llvm::StringRef path,
    llvm::ArrayRef<std::pair<std::string, HostTensor>> arrays) {
  std::string contents;
  if (path.ends_with(".npy")) {
    if (arrays.size() != 1)
      return llvm::createStringError(
          "%s: a .npy file holds one array; the graph gives %zu (write .npz)",
          path.str().c_str(), arrays.size());
    contents = encodeNpy(arrays.front().second);
  } else {
    // A zip archive of stored members, then the central directory.
    std::string directory;
    uint16_t count = 0;
    for (const auto &[name, tensor] : arrays) {
      std::string member = encodeNpy(tensor);
      std::string fileName = name + ".npy";
      uint32_t crc = llvm::crc32(llvm::arrayRefFromStringRef(member));
      uint32_t offset = contents.size();
      auto header = [&](std::string &out, bool central) {
        append<uint32_t>(out, central ? 0x02014b50 : 0x04034b50);
        if (central)
          append<uint16_t>(out, 20); // made by
        append<uint16_t>(out, 20);   // needed to extract
        append<uint16_t>(out, 0);    // flags
        append<uint16_t>(out, 0);    // stored
        append<uint16_t>(out, 0);    // time
        append<uint16_t>(out, 0x21); // date: 1980-01-01
        append<uint32_t>(out, crc);
        append<uint32_t>(out, member.size());
        append<uint32_t>(out, member.size());
        append<uint16_t>(out, fileName.size());
        append<uint16_t>(out, 0); // extra
        if (central) {
          append<uint16_t>(out, 0); // comment
          append<uint16_t>(out, 0); // disk
          append<uint16_t>(out, 0); // internal attributes
          append<uint32_t>(out, 0); // external attributes
          append<uint32_t>(out, offset);
        }
        out += fileName;
      };
      header(contents, false);
      contents += member;
      header(directory, true);
      ++count;
    }
    uint32_t directoryOffset = contents.size();
    contents += directory;
    append<uint32_t>(contents, 0x06054b50);
    append<uint16_t>(contents, 0);
    append<uint16_t>(contents, 0);
    append<uint16_t>(contents, count);
    append<uint16_t>(contents, count);
    append<uint32_t>(contents, directory.size());
    append<uint32_t>(contents, directoryOffset);
    append<uint16_t>(contents, 0);
  }
  llvm::SmallString<256> temporary(path);
  temporary += ".tmp-%%%%%%";
  int fd;
  if (std::error_code error =
          llvm::sys::fs::createUniqueFile(temporary, fd, temporary))
    return llvm::createStringError(error, "%s: %s", path.str().c_str(),
                                   error.message().c_str());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << contents;
    os.flush();
    if (os.has_error()) {
      llvm::sys::fs::remove(temporary);
      return llvm::createStringError(os.error(), "%s: %s", path.str().c_str(),
                                     os.error().message().c_str());
    }
  }
  if (std::error_code error = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return llvm::createStringError(error, "%s: %s", path.str().c_str(),
                                   error.message().c_str());
  }
  return llvm::Error::success();
}
