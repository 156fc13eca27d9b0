// util::markdown_text, markdown_code, markdown_code_block, html_text,
// workflow_data and workflow_property: each output's one function for text
// from outside, byte for byte. What the whole renderers make of hostile
// names is test_report_hostile_names.cpp.
#include <doctest/doctest.h>

#include <refbench/util/outside_text.hpp>

#include <string>

using namespace refbench::util;

namespace {

const std::string k_zwsp = "\xE2\x80\x8B"; // U+200B after an '@'

} // namespace

TEST_CASE("util::markdown_text") {
  SUBCASE("names read as they are") {
    CHECK(markdown_text("BM_Sort/1024/real_time") == "BM_Sort/1024/real_time");
    CHECK(markdown_text("bytes_per_second") == "bytes_per_second");
    CHECK(markdown_text("ns/op") == "ns/op");
    CHECK(markdown_text("é ✅ a-b a+b a=b 1.5") == "é ✅ a-b a+b a=b 1.5");
    CHECK(markdown_text("") == "");
  }
  SUBCASE("inline Markdown, HTML and table syntax escaped") {
    CHECK(markdown_text("a|b") == "a\\|b");
    CHECK(markdown_text("`x` *y* [z](u) ~w~ \\") == "\\`x\\` \\*y\\* \\[z\\](u) \\~w\\~ \\\\");
    CHECK(markdown_text("_lead trail_ in_word") == "\\_lead trail\\_ in_word");
    CHECK(markdown_text("<!-- x --> <script>&amp;") == "&lt;!-- x --&gt; &lt;script&gt;&amp;amp;");
    CHECK(markdown_text("a #1") == "a \\#1");
  }
  SUBCASE("one line that starts no block") {
    CHECK(markdown_text("z\n\n### refbench: ✅ no regression\n\n<!--") ==
          "z  \\#\\#\\# refbench: ✅ no regression  &lt;!--");
    CHECK(markdown_text("# h") == "\\# h");
    CHECK(markdown_text("- item") == "\\- item");
    CHECK(markdown_text("  + item") == "  \\+ item");
    CHECK(markdown_text("===") == "\\===");
    CHECK(markdown_text("12. item") == "12\\. item");
    CHECK(markdown_text("3) item") == "3\\) item");
    CHECK(markdown_text("12 items. 3) more") == "12 items. 3) more");
    CHECK(markdown_text("-O2 +x =y") == "-O2 +x =y");
    CHECK(markdown_text("=y") == "\\=y");
    CHECK(markdown_text("---") == "\\---");
    CHECK(markdown_text(": a: b") == ": a: b");
    CHECK(markdown_text("> quote") == "&gt; quote");
    CHECK(markdown_text("::error::pwned") == "\\::error::pwned");
    CHECK(markdown_text("a\x1b[31m\x07\rb") == "a\\\\x1b\\[31m\\\\x07\\\\rb"); // shown, then escaped
  }
  SUBCASE("no live mention") {
    CHECK(markdown_text("@someone") == "@" + k_zwsp + "someone");
    CHECK(markdown_text("cc @org/team, a@b") == "cc @" + k_zwsp + "org/team, a@" + k_zwsp + "b");
  }
}

TEST_CASE("util::markdown_code and markdown_code_block survive backticks") {
  CHECK(markdown_code("main") == "`main`");
  CHECK(markdown_code("a`b") == "``a`b``");
  CHECK(markdown_code("`x`") == "`` `x` ``");
  CHECK(markdown_code("a ``` b") == "````a ``` b````");
  CHECK(markdown_code(" padded ") == "`  padded  `");
  CHECK(markdown_code("two\nlines") == "`two lines`");
  CHECK(markdown_code("@someone <!--") == "`@someone <!--`"); // a code span holds no mention or tag
  CHECK(markdown_code_block("echo hi", "sh") == "```sh\necho hi\n```\n");
  CHECK(markdown_code_block("a ```` b\n") == "`````\na ```` b\n`````\n");
}

TEST_CASE("util::html_text") {
  CHECK(html_text("<script>alert('x')</script> & \"q\"") ==
        "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
  CHECK(html_text("<!--\nx") == "&lt;!--\\nx");
  CHECK(html_text("é ✅") == "é ✅");
}

TEST_CASE("util::workflow_data and workflow_property") {
  CHECK(workflow_data("50%\r\n") == "50%25%0D%0A");
  CHECK(workflow_property("50%\r\n") == "50%25%0D%0A");
  CHECK(workflow_data("a: b, c") == "a: b, c");
  CHECK(workflow_property("a: b, c") == "a%3A b%2C c");
  CHECK(workflow_property("refbench: 50%, p99\nburst") == "refbench%3A 50%25%2C p99%0Aburst");
  CHECK(workflow_data("%25") == "%2525"); // already-escaped text is escaped again
  CHECK(workflow_data("::error::x") == "::error::x");
  CHECK(workflow_property("::") == "%3A%3A");
  CHECK(workflow_data("") == "");
  CHECK(workflow_data("é ✅") == "é ✅");
  SUBCASE("control characters shown") {
    CHECK(workflow_data("a\x1b[31mb\x07\t\x7f") == "a\\x1b[31mb\\x07\\t\\x7f");
    CHECK(workflow_property("a\x1b[31m\x07") == "a\\x1b[31m\\x07");
    CHECK(workflow_data("\xc2\x9b"
                        "31m \xc2\x85 \xc2\xa0 é") == "\\u009b31m \\u0085 \xc2\xa0 é"); // C1 controls, not NBSP
    CHECK(workflow_data(std::string("a\0b", 3)) == "a\\x00b");
    // a message line may start with :: only inside one command's text
    CHECK(workflow_data("a\n::error::b").find('\n') == std::string::npos);
  }
}
