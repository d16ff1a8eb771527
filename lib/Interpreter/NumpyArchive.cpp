//===- NumpyArchive.cpp - host tensors as .npy and .npz files ---*- C++ -*-===//
//
// This file implements NumPy's `.npy` format (version 1.0) and the `.npz`
// archive around it: a zip file whose members are stored (method 0), each
// with its CRC-32, followed by the central directory.
//
//===----------------------------------------------------------------------===//

#include "kiln/Interpreter/NumpyArchive.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
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
  std::string code =
      (isUnsignedInteger(element) ? "u" : "i") + std::to_string(bytes);
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

namespace {

template <typename T> T readLittle(llvm::StringRef bytes, size_t offset) {
  return llvm::support::endian::read<T, llvm::endianness::little>(bytes.data() +
                                                                  offset);
}

/// Parses a `.npy` member's header and takes its elements.
llvm::Expected<NumpyArray> decodeNpy(llvm::StringRef bytes,
                                     llvm::StringRef name) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError("%s: %s", name.str().c_str(),
                                   why.str().c_str());
  };
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return fail("not a .npy array (no \\x93NUMPY magic)");
  unsigned major = (unsigned char)bytes[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = readLittle<uint16_t>(bytes, 8);
    headerStart = 10;
  } else if ((major == 2 || major == 3) && bytes.size() >= 12) {
    headerLength = readLittle<uint32_t>(bytes, 8);
    headerStart = 12;
  } else {
    return fail("unknown .npy version " + llvm::Twine(major));
  }
  if (headerStart + headerLength > bytes.size())
    return fail("the header runs past the end of the array");
  llvm::StringRef header = bytes.substr(headerStart, headerLength);
  NumpyArray array;
  auto valueOf = [&](llvm::StringRef key) -> llvm::StringRef {
    size_t at = header.find("'" + key.str() + "'");
    if (at == llvm::StringRef::npos)
      return {};
    llvm::StringRef rest = header.substr(at + key.size() + 2).ltrim(" :");
    return rest;
  };
  llvm::StringRef descr = valueOf("descr");
  if (!descr.consume_front("'") || descr.find('\'') == llvm::StringRef::npos)
    return fail("the header has no 'descr'");
  array.descr = descr.take_until([](char c) { return c == '\''; }).str();
  if (valueOf("fortran_order").starts_with("True"))
    return fail("Fortran-ordered arrays are not read; save a C-ordered copy "
                "(numpy.ascontiguousarray)");
  llvm::StringRef shape = valueOf("shape");
  if (!shape.consume_front("("))
    return fail("the header has no 'shape'");
  shape = shape.take_until([](char c) { return c == ')'; });
  llvm::SmallVector<llvm::StringRef> sizes;
  shape.split(sizes, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef size : sizes) {
    size = size.trim();
    if (size.empty())
      continue;
    int64_t value;
    if (size.getAsInteger(10, value) || value < 0)
      return fail("a bad size '" + size + "' in the shape");
    array.shape.push_back(value);
  }
  array.bytes = bytes.substr(headerStart + headerLength).str();
  return array;
}

/// The width in bytes of a NumPy type code's elements, or 0 if kiln does
/// not read it.
unsigned widthOf(llvm::StringRef descr) {
  if (descr.size() < 3 || !llvm::is_contained("<|=", descr[0]))
    return 0;
  unsigned width;
  if (descr.substr(2).getAsInteger(10, width))
    return 0;
  char kind = descr[1];
  if (kind == 'f' && (width == 2 || width == 4 || width == 8))
    return width;
  if ((kind == 'i' || kind == 'u') &&
      (width == 1 || width == 2 || width == 4 || width == 8))
    return width;
  if (kind == 'b' && width == 1)
    return 1;
  return 0;
}

} // namespace

llvm::Expected<std::vector<std::pair<std::string, NumpyArray>>>
kiln::interp::readNumpyFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "%s: %s",
                                   path.str().c_str(),
                                   buffer.getError().message().c_str());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  std::vector<std::pair<std::string, NumpyArray>> arrays;
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError("%s: %s", path.str().c_str(),
                                   why.str().c_str());
  };
  if (bytes.starts_with("\x93NUMPY")) {
    auto array = decodeNpy(bytes, path);
    if (!array)
      return array.takeError();
    arrays.push_back({llvm::sys::path::stem(path).str(), std::move(*array)});
    return arrays;
  }
  // A zip archive: the end-of-central-directory record (22 bytes, then a
  // comment of up to 64 KiB), and for zip64 its locator and record.
  size_t end = llvm::StringRef::npos;
  for (size_t at = bytes.size() >= 22 ? bytes.size() - 22 : 0;; --at) {
    if (bytes.size() >= 22 && readLittle<uint32_t>(bytes, at) == 0x06054b50) {
      end = at;
      break;
    }
    if (at == 0 || bytes.size() - at > 22 + 65535)
      break;
  }
  if (end == llvm::StringRef::npos)
    return fail("neither a .npy array nor a .npz (zip) archive");
  uint64_t count = readLittle<uint16_t>(bytes, end + 10);
  uint64_t directory = readLittle<uint32_t>(bytes, end + 16);
  if (end >= 20 && readLittle<uint32_t>(bytes, end - 20) == 0x07064b50) {
    uint64_t record = readLittle<uint64_t>(bytes, end - 20 + 8);
    if (record > bytes.size() || bytes.size() - record < 56 ||
        readLittle<uint32_t>(bytes, record) != 0x06064b50)
      return fail("a bad zip64 end-of-directory record");
    count = readLittle<uint64_t>(bytes, record + 32);
    directory = readLittle<uint64_t>(bytes, record + 48);
  }
  size_t at = directory;
  for (uint64_t i = 0; i < count; ++i) {
    if (at > bytes.size() || bytes.size() - at < 46 ||
        readLittle<uint32_t>(bytes, at) != 0x02014b50)
      return fail("a bad central directory entry");
    uint16_t method = readLittle<uint16_t>(bytes, at + 10);
    uint64_t size = readLittle<uint32_t>(bytes, at + 20);
    uint16_t nameLength = readLittle<uint16_t>(bytes, at + 28);
    uint16_t extraLength = readLittle<uint16_t>(bytes, at + 30);
    uint16_t commentLength = readLittle<uint16_t>(bytes, at + 32);
    uint64_t local = readLittle<uint32_t>(bytes, at + 42);
    if (bytes.size() - at - 46 < (uint64_t)nameLength + extraLength)
      return fail("a central directory entry runs past the end");
    std::string name = bytes.substr(at + 46, nameLength).str();
    // The zip64 extra field holds, in order, the sizes and the offset that
    // the fixed fields mark 0xffffffff.
    llvm::StringRef extra = bytes.substr(at + 46 + nameLength, extraLength);
    while (extra.size() >= 4) {
      uint16_t tag = readLittle<uint16_t>(extra, 0);
      uint16_t length = readLittle<uint16_t>(extra, 2);
      llvm::StringRef field = extra.substr(4, length);
      if (tag == 1) {
        size_t next = 0;
        auto take = [&](uint64_t &value) {
          if (value == 0xffffffff && next + 8 <= field.size()) {
            value = readLittle<uint64_t>(field, next);
            next += 8;
          }
        };
        uint64_t uncompressed = readLittle<uint32_t>(bytes, at + 24);
        take(uncompressed);
        take(size);
        take(local);
      }
      extra = extra.substr(std::min<size_t>(extra.size(), 4 + length));
    }
    at += 46 + nameLength + extraLength + commentLength;
    if (method != 0)
      return fail("member '" + name +
                  "' is compressed; kiln reads numpy.savez's stored "
                  "archives, not numpy.savez_compressed's");
    if (local > bytes.size() || bytes.size() - local < 30 ||
        readLittle<uint32_t>(bytes, local) != 0x04034b50)
      return fail("member '" + name + "' has a bad local header");
    uint64_t data = local + 30 + readLittle<uint16_t>(bytes, local + 26) +
                    readLittle<uint16_t>(bytes, local + 28);
    if (data > bytes.size() || bytes.size() - data < size)
      return fail("member '" + name + "' runs past the end of the archive");
    llvm::StringRef member(name);
    member.consume_back(".npy");
    auto array =
        decodeNpy(bytes.substr(data, size), (path + ": " + member).str());
    if (!array)
      return array.takeError();
    arrays.push_back({member.str(), std::move(*array)});
  }
  return arrays;
}

llvm::Expected<HostTensor> kiln::interp::toHostTensor(const NumpyArray &array,
                                                      RankedTensorType type) {
  auto shapeText = [](llvm::ArrayRef<int64_t> shape) {
    std::string text = "(";
    for (auto [i, size] : llvm::enumerate(shape))
      text += (i ? ", " : "") + std::to_string(size);
    return text + ")";
  };
  if (llvm::ArrayRef<int64_t>(array.shape) != type.getShape())
    return llvm::createStringError("shape %s where the parameter is %s",
                                   shapeText(array.shape).c_str(),
                                   shapeText(type.getShape()).c_str());
  unsigned width = widthOf(array.descr);
  if (!width)
    return llvm::createStringError("element type '%s' is not read",
                                   array.descr.c_str());
  HostTensor tensor(type);
  int64_t count = tensor.size();
  if ((uint64_t)array.bytes.size() < (uint64_t)count * width)
    return llvm::createStringError("%zu bytes for %lld elements of '%s'",
                                   array.bytes.size(), (long long)count,
                                   array.descr.c_str());
  char kind = array.descr[1];
  llvm::StringRef bytes = array.bytes;
  auto readInteger = [&](int64_t i) -> int64_t {
    switch (width) {
    case 1:
      return kind == 'i' ? (int64_t)(int8_t)bytes[i] : (uint8_t)bytes[i];
    case 2:
      return kind == 'i' ? (int64_t)readLittle<int16_t>(bytes, 2 * i)
                         : readLittle<uint16_t>(bytes, 2 * i);
    case 4:
      return kind == 'i' ? (int64_t)readLittle<int32_t>(bytes, 4 * i)
                         : readLittle<uint32_t>(bytes, 4 * i);
    default:
      return readLittle<int64_t>(bytes, 8 * i);
    }
  };
  auto readFloat = [&](int64_t i) -> double {
    if (width == 8)
      return readLittle<double>(bytes, 8 * i);
    if (width == 4)
      return readLittle<float>(bytes, 4 * i);
    llvm::APFloat half(llvm::APFloat::IEEEhalf(),
                       llvm::APInt(16, readLittle<uint16_t>(bytes, 2 * i)));
    return half.convertToFloat();
  };
  Type element = type.getElementType();
  switch (tensor.kind) {
  case ElementKind::Float:
    if (kind != 'f')
      return llvm::createStringError(
          "'%s' elements for a parameter of floats (convert with astype)",
          array.descr.c_str());
    for (int64_t i = 0; i < count; ++i)
      tensor.floats[i] = roundToFloat(readFloat(i), element);
    break;
  case ElementKind::Integer:
    if (kind == 'f')
      return llvm::createStringError(
          "'%s' elements for a parameter of integers (convert with astype)",
          array.descr.c_str());
    for (int64_t i = 0; i < count; ++i)
      tensor.ints[i] = wrapInteger((uint64_t)readInteger(i), element);
    break;
  default:
    return llvm::createStringError("parameters of this type are not read "
                                   "from NumPy files");
  }
  return tensor;
}
