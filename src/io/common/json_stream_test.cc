#include "src/io/common/json_stream.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace decodeprof::io {
namespace {

namespace od = simdjson::ondemand;

// What a read saw: "key=" for members, "@offset:name" for elements, then the status.
struct Seen {
  std::vector<std::string> items;
  base::Status status;
  JsonStream::Top top = JsonStream::Top::kScalar;
  bool saw_list = false;
};

// Reads `text` from memory (file = false) or from a temporary file, with `window` bytes. An
// element whose "name" is "fail" fails with Fail().
Seen Read(const std::string& text, size_t window, bool file) {
  Seen seen;
  std::FILE* f = nullptr;
  if (file) {
    f = std::tmpfile();
    std::fwrite(text.data(), 1, text.size(), f);
    std::rewind(f);
  }
  auto stream = file ? std::make_unique<JsonStream>("t.json", f, "traceEvents", "event")
                     : std::make_unique<JsonStream>("t.json", text, "traceEvents", "event");
  JsonStream& json = *stream;
  json.set_window(window);
  seen.status = json.Run(
      [&](std::string_view key, od::value& v) {
        seen.items.push_back(std::string(key) + "=");
        return json.Skip(v) ? JsonStep::kBad : JsonStep::kOk;
      },
      [&](od::object& event, uint64_t offset) {
        std::string item = "@" + std::to_string(offset) + ":";
        for (auto field : event) {
          std::string_view key, name;
          if (field.error() || json.Key(field.value_unsafe(), key)) return JsonStep::kBad;
          od::value v = field.value_unsafe().value();
          if (key == "name" && !v.get_string().get(name)) {
            if (name == "fail") return json.Fail(offset, "failed");
            item += name;
          } else if (json.Skip(v)) {
            return JsonStep::kBad;
          }
        }
        seen.items.push_back(item);
        return JsonStep::kOk;
      });
  seen.top = json.top();
  seen.saw_list = json.saw_list();
  if (f != nullptr) std::fclose(f);
  return seen;
}

// The same read from memory and from a file, with windows of 1 to 40 bytes and the default.
Seen ReadEveryWay(const std::string& text) {
  const Seen first = Read(text, JsonStream::kWindow, false);
  for (size_t window :
       {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{16}, size_t{40}, JsonStream::kWindow}) {
    for (bool file : {false, true}) {
      const Seen s = Read(text, window, file);
      EXPECT_EQ(s.items, first.items) << "window " << window << " file " << file;
      EXPECT_EQ(s.status.ToString(), first.status.ToString())
          << "window " << window << " file " << file;
    }
  }
  return first;
}

TEST(JsonStream, StreamsTheListAndHandsOverTheOtherMembers) {
  const std::string text =
      "\xEF\xBB\xBF{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"x\": {}}],\n"
      "\"traceEvents\": [\n"
      "{\"name\": \"a},{\\\"b\", \"args\": {\"grid\": [1, 2], \"s\": \"}, {\"}},\n"
      "  {\"n\\u0061me\": \"\\u00e9\", \"deep\": [[[[[[[[[[[[1]]]]]]]]]]]]} ,\n"
      "{\"name\": \"c\", \"v\": [true, false, null, -0.5e-3, \"\\\\\"]}\n"
      "], \"traceName\": \"x\"}\n";
  const Seen s = ReadEveryWay(text);
  ASSERT_TRUE(s.status.ok()) << s.status.ToString();
  EXPECT_EQ(s.top, JsonStream::Top::kObject);
  EXPECT_TRUE(s.saw_list);
  const std::vector<std::string> expected = {
      "schemaVersion=", "deviceProperties=", "@83:a},{\"b", "@145:\xC3\xA9",
      "@206:c",         "traceName="};
  EXPECT_EQ(s.items, expected);
}

TEST(JsonStream, ATopLevelArrayIsTheList) {
  const Seen s = ReadEveryWay(" [ {\"name\": \"a\"}, {} ]");
  ASSERT_TRUE(s.status.ok()) << s.status.ToString();
  EXPECT_EQ(s.top, JsonStream::Top::kArray);
  EXPECT_EQ(s.items, (std::vector<std::string>{"@3:a", "@18:"}));
  EXPECT_TRUE(ReadEveryWay("[]").status.ok());
}

TEST(JsonStream, ScalarsAndObjectsWithoutTheList) {
  Seen s = ReadEveryWay("42 ");
  EXPECT_TRUE(s.status.ok());
  EXPECT_EQ(s.top, JsonStream::Top::kScalar);
  s = ReadEveryWay("{\"traceEvents\": {\"a\": 1}}");
  EXPECT_TRUE(s.status.ok());
  EXPECT_FALSE(s.saw_list);
  EXPECT_EQ(s.items, std::vector<std::string>{"traceEvents="});
}

TEST(JsonStream, MalformedJsonIsNlohmannsError) {
  // Truncated: the input's size.
  const std::string text = "{\"traceEvents\": [{\"name\": \"a\"}, {\"name\": \"b\"";
  Seen s = ReadEveryWay(text);
  EXPECT_EQ(s.status.where(), "t.json:byte " + std::to_string(text.size()));
  EXPECT_NE(s.status.message().find("unexpected end of input"), std::string::npos);
  EXPECT_EQ(s.items, std::vector<std::string>{"@17:a"});  // what came before it
  // Anywhere, also in values nobody reads: the literal, the number, the escape, the comma.
  for (const char* bad : {"{\"traceEvents\": [{\"x\": tru}]}", "{\"traceEvents\": [{\"x\": 01}]}",
                          "{\"traceEvents\": [{\"x\": \"\\q\"}]}",
                          "{\"a\": [1 2], \"traceEvents\": []}", "{\"traceEvents\": [{}] x",
                          "{\"traceEvents\": [{},]}", "{\"traceEvents\": [{\"x\": 1e999}]}"}) {
    s = ReadEveryWay(bad);
    EXPECT_EQ(s.status.kind(), base::ErrorKind::kData) << bad;
    EXPECT_EQ(s.status.message().rfind("malformed JSON: ", 0), 0u)
        << bad << ": " << s.status.ToString();
  }
  s = ReadEveryWay("Kernel_Name,Start\n");
  EXPECT_EQ(s.status.where(), "t.json:byte 0");
  EXPECT_NE(s.status.message().find("line 1, column 1"), std::string::npos);
}

TEST(JsonStream, AnElementThatIsNotAnObject) {
  const Seen s = ReadEveryWay("{\"traceEvents\": [{},\n 12 ]}");
  EXPECT_EQ(s.status.where(), "t.json:byte 25");  // past the number and the byte after it
  EXPECT_EQ(s.status.message(), "a traceEvents element is a number, not an event object (line 2)");
}

TEST(JsonStream, AFailedElementBeforeASyntaxErrorIsTheError) {
  Seen s = ReadEveryWay("{\"traceEvents\": [{},\n{\"name\": \"fail\"}, {\"x\": nul}]}");
  EXPECT_EQ(s.status.ToString(),
            Read("{\"traceEvents\": [{},\n{\"name\": \"fail\"}]}", 1, false).status.ToString());
  EXPECT_EQ(s.status.where(), "t.json:byte 21");
  EXPECT_EQ(s.status.message(), "failed (line 2)");
  // After it, the syntax error wins.
  s = ReadEveryWay("{\"traceEvents\": [{\"x\": nul},\n{\"name\": \"fail\"}]}");
  EXPECT_EQ(s.status.message().rfind("malformed JSON: ", 0), 0u) << s.status.ToString();
}

TEST(JsonStream, NestingDeeperThanTheChecksIsStillRead) {
  const std::string deep = std::string(400, '[') + std::string(400, ']');
  const Seen s = ReadEveryWay("{\"traceEvents\": [{\"x\": " + deep +
                              ", \"name\": \"a\"}], \"m\": " + deep + "}");
  ASSERT_TRUE(s.status.ok()) << s.status.ToString();
  EXPECT_EQ(s.items, (std::vector<std::string>{"@17:a", "m="}));
}

TEST(JsonStream, IntegersAsNlohmannReadsThem) {
  EXPECT_EQ(JsonInteger("12"), 12);
  EXPECT_EQ(JsonInteger("-0"), 0);
  EXPECT_EQ(JsonInteger("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(JsonInteger("9223372036854775808"), std::nullopt);
  EXPECT_EQ(JsonInteger("1.0"), std::nullopt);
  EXPECT_EQ(JsonInteger("1e2"), std::nullopt);
  // Short tokens take a digit loop, long ones from_chars: the same answers.
  EXPECT_EQ(JsonInteger("-123456789012345678"), -123456789012345678);
  EXPECT_EQ(JsonInteger("1234567890123456789"), 1234567890123456789);
  EXPECT_EQ(JsonInteger("007"), 7);
  EXPECT_EQ(JsonInteger("-"), std::nullopt);
  EXPECT_EQ(JsonInteger(""), std::nullopt);
  EXPECT_EQ(JsonInteger("+1"), std::nullopt);
  EXPECT_EQ(JsonInteger("12a"), std::nullopt);
  EXPECT_EQ(JsonInteger("1-2"), std::nullopt);
}

}  // namespace
}  // namespace decodeprof::io

namespace decodeprof::io {
namespace {

// nlohmann's message quotes the token it stopped in ("last read: '...'"): a long one is cut to
// 200 bytes, as every quote of input is.
TEST(JsonStream, ALongTokenInAnErrorIsCut) {
  const std::string text =
      "{\"traceEvents\": [{\"name\": \"" + std::string(100000, 'a') + "\x01\"}]}";
  const Seen seen = Read(text, JsonStream::kWindow, false);
  ASSERT_EQ(seen.status.kind(), base::ErrorKind::kData);
  EXPECT_LT(seen.status.message().size(), 500u) << seen.status.message().substr(0, 600);
  EXPECT_NE(seen.status.message().find("last read: '\"aaaa"), std::string::npos)
      << seen.status.message().substr(0, 600);
  EXPECT_NE(seen.status.message().find(" bytes)"), std::string::npos);
}

}  // namespace
}  // namespace decodeprof::io
