#include "src/base/json_writer.h"

#include <gtest/gtest.h>

namespace decodeprof::base {
namespace {

TEST(JsonWriterTest, DumpsLikePythonJsonDumpsIndent2) {
  JsonValue doc = JsonValue::MakeObject();
  doc.Add("a", JsonValue::Int(1));
  doc.Add("b", JsonValue::MakeObject()).Add("c", JsonValue::Null());
  JsonValue& d = doc.Add("d", JsonValue::MakeArray());
  d.Push(JsonValue::Int(1));
  d.Push(JsonValue::Float(2.5));
  doc.Add("e", JsonValue::MakeObject());
  doc.Add("f", JsonValue::MakeArray());
  doc.Add("g", JsonValue::Str("\xc3\xa9\"\\x\n"));
  doc.Add("h", JsonValue::Float(0.0));
  doc.Add("i", JsonValue::Bool(true));
  // Expected text produced by CPython's json.dumps(..., indent=2).
  EXPECT_EQ(doc.Dump(),
            "{\n"
            "  \"a\": 1,\n"
            "  \"b\": {\n"
            "    \"c\": null\n"
            "  },\n"
            "  \"d\": [\n"
            "    1,\n"
            "    2.5\n"
            "  ],\n"
            "  \"e\": {},\n"
            "  \"f\": [],\n"
            "  \"g\": \"\\u00e9\\\"\\\\x\\n\",\n"
            "  \"h\": 0.0,\n"
            "  \"i\": true\n"
            "}");
}

}  // namespace
}  // namespace decodeprof::base
