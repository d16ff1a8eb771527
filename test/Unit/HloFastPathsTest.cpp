//===- HloFastPathsTest.cpp - byte-level reads of HLO text ------*- C++ -*-===//
//
// This file checks that the importer's byte-level reads take the spellings
// XLA writes and decline the others. The lit tests see only their results,
// which the token path gives too: a fast path that declined everything
// would pass them all and lose only speed.
//
//===----------------------------------------------------------------------===//

#include "HloLexer.h"
#include "HloValueParser.h"

#include "gtest/gtest.h"

#include <string>

using namespace kiln::hlo;

namespace {

/// Where findGroupEnd ends `text` (from its start), as an offset; -1 where
/// it declines.
long groupEnd(llvm::StringRef text) {
  const char *end = findGroupEnd(text.begin(), text.end());
  return end ? end - text.begin() : -1;
}

long shapeEnd(llvm::StringRef text) {
  const char *end = findPlainArrayShapeEnd(text.begin(), text.end());
  return end ? end - text.begin() : -1;
}

} // namespace

TEST(HloFastPaths, PlainMetadataIsReadByBytes) {
  Metadata metadata;
  ASSERT_TRUE(parsePlainMetadata(
      R"({op_type="aten__mm" op_name="layers.0/aten__mm" source_file="/a/b.py" source_line=612 source_column=4 stack_frame_id=3 preserve_layout=true})",
      metadata));
  EXPECT_EQ(metadata.opName, "layers.0/aten__mm");
  EXPECT_EQ(metadata.sourceFile, "/a/b.py");
  EXPECT_EQ(metadata.sourceLine, 612);
  EXPECT_EQ(metadata.sourceColumn, 4);
  EXPECT_EQ(metadata.stackFrameId, 3);
  Metadata empty;
  EXPECT_TRUE(parsePlainMetadata("{}", empty));
}

TEST(HloFastPaths, OtherMetadataIsLeftToTokens) {
  for (llvm::StringRef group : {
           R"({op_name="a\"b"})",            // an escape
           "{op_name=\"a\"\tsource_line=1}", // a tab
           R"({op_name="a" /* c */})",       // a comment
           R"({op_name=word})",              // a word for a string
           R"({source_line="1"})",           // a string for a number
           R"({source_line=99999999999999999999})",
           R"({profile_type={1}})", // a nested group
           R"({op_name="a"source_line=1})",
           R"({op_name="a"} )", // bytes after the group
           R"({op_name="a")",
       }) {
    Metadata metadata;
    metadata.opName = "kept";
    EXPECT_FALSE(parsePlainMetadata(group, metadata)) << group.str();
    // Declined, the metadata is as it was for the token path to fill.
    EXPECT_EQ(metadata.opName, "kept") << group.str();
    EXPECT_EQ(metadata.sourceLine, 0) << group.str();
  }
}

TEST(HloFastPaths, GroupsAreSteppedOverByBytes) {
  EXPECT_EQ(groupEnd("{0,1} rest"), 5);
  EXPECT_EQ(groupEnd(R"({op_name="}{" x=[1,(2)]} rest)"), 24);
  EXPECT_EQ(groupEnd("{a // }\n} rest"), 9);
  EXPECT_EQ(groupEnd("{a /* } */ } rest"), 12);
  EXPECT_EQ(groupEnd(R"({s="\"}"} rest)"), 9);
  // What the lexer reports is left to it.
  EXPECT_EQ(groupEnd("{0,1)"), -1);
  EXPECT_EQ(groupEnd("{0,1"), -1);
  EXPECT_EQ(groupEnd(R"({s="})"), -1);
  EXPECT_EQ(groupEnd("{a @}"), -1);
}

TEST(HloFastPaths, PlainShapesAreSteppedOverByBytes) {
  EXPECT_EQ(shapeEnd("f32[8192,896]{1,0} dot("), 18);
  EXPECT_EQ(shapeEnd("bf16[] add("), 6);
  EXPECT_EQ(shapeEnd("f32[<=8,?] x"), 10);
  // A layout after a space or a comment, a tuple, a word inside the
  // brackets: tokens decide.
  EXPECT_EQ(shapeEnd("f32[2] {0} x"), -1);
  EXPECT_EQ(shapeEnd("f32[2] /* c */ {0} x"), -1);
  EXPECT_EQ(shapeEnd("(f32[2], s32[]) x"), -1);
  EXPECT_EQ(shapeEnd("f32[n] x"), -1);
}
