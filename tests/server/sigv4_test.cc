// SigV4: AWS's published test vectors (aws-sig-v4-test-suite, and the signing-key example of
// AWS's "Signature Version 4" pages), then Verify's errors in DynamoDB's words and order.
#include "server/http/sigv4.h"

#include <gtest/gtest.h>

#include <vector>

namespace ddbd::server::http::sigv4 {
namespace {

// The test suite's fixed inputs.
constexpr std::string_view kSuiteKey = "AKIDEXAMPLE";
constexpr std::string_view kSuiteSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
constexpr std::string_view kSuiteDate = "20150830T123600Z";
constexpr std::string_view kSuiteHost = "example.amazonaws.com";

std::string SignatureFrom(const std::string& authorization) {
  return authorization.substr(authorization.find("Signature=") + 10);
}

// Signs a request of the suite: service "service", region us-east-1.
std::string SuiteSignature(std::string_view method, std::string_view target,
                           std::vector<Header> extra_headers,
                           std::vector<std::string_view> signed_names, std::string_view body = "") {
  std::vector<Header> headers = {{"Host", std::string(kSuiteHost)},
                                 {"X-Amz-Date", std::string(kSuiteDate)}};
  for (auto& header : extra_headers) headers.push_back(std::move(header));
  RequestView request{method, target, headers, body};
  return SignatureFrom(
      Sign(request, signed_names, kSuiteKey, kSuiteSecret, "us-east-1", kSuiteDate, "service"));
}

TEST(SigV4Test, DerivesTheSigningKeyOfAwsExample) {
  const std::string key = SigningKey(kSuiteSecret, "20120215", "us-east-1", "iam");
  std::string hex;
  for (unsigned char c : key) {
    static constexpr char kDigits[] = "0123456789abcdef";
    hex += kDigits[c >> 4];
    hex += kDigits[c & 15];
  }
  EXPECT_EQ(hex, "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
}

// AWS's published S3 example ("Signature Calculations for the Authorization Header: GET
// Object"): the path is signed as sent (once encoded), the payload hash is the header's.
TEST(SigV4Test, SignsS3sGetObjectExample) {
  const std::vector<Header> headers = {
      {"Host", "examplebucket.s3.amazonaws.com"},
      {"Range", "bytes=0-9"},
      {"x-amz-content-sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"x-amz-date", "20130524T000000Z"}};
  const std::vector<std::string_view> names = {"host", "range", "x-amz-content-sha256",
                                               "x-amz-date"};
  EXPECT_EQ(Sign({"GET", "/test.txt", headers, ""}, names, "AKIAIOSFODNN7EXAMPLE",
                 "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "us-east-1", "20130524T000000Z", "s3"),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
            "aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4Test, SuiteGetVanilla) {
  std::vector<Header> headers = {{"Host", std::string(kSuiteHost)},
                                 {"X-Amz-Date", std::string(kSuiteDate)}};
  SignedRequest signed_request;
  signed_request.signed_headers = "host;x-amz-date";
  const std::string canonical =
      CanonicalRequest(RequestView{"GET", "/", headers, ""}, signed_request, Sha256Hex(""));
  EXPECT_EQ(canonical,
            "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
            "host;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(StringToSign(kSuiteDate, "20150830/us-east-1/service/aws4_request", canonical),
            "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
            "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
  EXPECT_EQ(SuiteSignature("GET", "/", {}, {"host", "x-amz-date"}),
            "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4Test, SuiteQueriesAreSortedByNameThenValue) {
  EXPECT_EQ(SuiteSignature("GET", "/?Param2=value2&Param1=value1", {}, {"host", "x-amz-date"}),
            "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
  EXPECT_EQ(SuiteSignature("GET", "/?Param1=value2&Param1=value1", {}, {"host", "x-amz-date"}),
            "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694");
  EXPECT_EQ(SuiteSignature("GET", "/?\xE1\x88\xB4=bar", {}, {"host", "x-amz-date"}),
            "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04");
}

TEST(SigV4Test, SuitePaths) {
  EXPECT_EQ(
      SuiteSignature("GET", "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                     {}, {"host", "x-amz-date"}),
      "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f");
  EXPECT_EQ(SuiteSignature("GET", "//example//", {}, {"host", "x-amz-date"}),
            "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84");
}

TEST(SigV4Test, SuiteHeaderValues) {
  EXPECT_EQ(SuiteSignature("GET", "/", {{"My-Header1", " value1"}, {"My-Header2", "\"a   b   c\""}},
                           {"host", "my-header1", "my-header2", "x-amz-date"}),
            "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736");
  EXPECT_EQ(SuiteSignature("GET", "/",
                           {{"My-Header1", "value4"},
                            {"My-Header1", "value1"},
                            {"My-Header1", "value3"},
                            {"My-Header1", "value2"}},
                           {"host", "my-header1", "x-amz-date"}),
            "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01");
  EXPECT_EQ(
      SuiteSignature("GET", "/",
                     {{"My-Header1", "value2"}, {"My-Header1", "value2"}, {"My-Header1", "value1"}},
                     {"host", "my-header1", "x-amz-date"}),
      "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea");
}

TEST(SigV4Test, SuitePostWithBodyAndSessionToken) {
  EXPECT_EQ(SuiteSignature("POST", "/", {{"Content-Type", "application/x-www-form-urlencoded"}},
                           {"content-type", "host", "x-amz-date"}, "Param1=value1"),
            "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a");
  EXPECT_EQ(SuiteSignature("GET", "/",
                           {{"X-Amz-Security-Token",
                             "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"}},
                           {"host", "x-amz-date", "x-amz-security-token"}),
            "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8");
}

TEST(SigV4Test, CanonicalUriEncodesThePathAsSentOnceMore) {
  EXPECT_EQ(CanonicalUri(""), "/");
  EXPECT_EQ(CanonicalUri("/"), "/");
  EXPECT_EQ(CanonicalUri("/a%2Fb"), "/a%252Fb");
  EXPECT_EQ(CanonicalUri("/a/../b/./c/"), "/b/c/");
  EXPECT_EQ(CanonicalUri("/x y"), "/x%20y");
}

TEST(SigV4Test, CanonicalQueryDecodesThenEncodesStrictly) {
  EXPECT_EQ(CanonicalQuery("b=2&a=1&a=0", false), "a=0&a=1&b=2");
  EXPECT_EQ(CanonicalQuery("q=a+b&r=a%20b&s=%7e", false), "q=a%2Bb&r=a%20b&s=~");
  EXPECT_EQ(CanonicalQuery("k&&v=1=2", false), "k=&v=1%3D2");
  EXPECT_EQ(CanonicalQuery("X-Amz-Signature=abc&a=1", true), "a=1");
  EXPECT_EQ(CanonicalQuery("X-Amz-Signature=abc&a=1", false), "X-Amz-Signature=abc&a=1");
}

TEST(SigV4Test, CanonicalHeadersFoldWhitespaceAndLowerCaseNames) {
  std::vector<Header> headers = {{"X-Thing", "  a \t  b  "}, {"x-thing", "c"}, {"Other", "z"}};
  std::vector<std::string_view> names = {"other", "x-thing"};
  EXPECT_EQ(CanonicalHeaders(headers, names), "other:z\nx-thing:a b,c\n");
}

// DynamoDB-style requests verified at a fixed time.
class VerifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto parsed = Credentials::Parse("AKIDTEST s3cret\nAKIDTOKEN other token123\n");
    ASSERT_TRUE(parsed.ok());
    credentials_ = std::move(parsed).value();
    now_ = *ParseTimestamp("20260101T120000Z");
  }

  // A ListTables request signed like an SDK signs it.
  void SignRequest(std::string_view secret = "s3cret",
                   std::string_view timestamp = "20260101T120000Z",
                   std::string_view key = "AKIDTEST") {
    headers_ = {{"Host", "localhost:8000"},
                {"Content-Type", "application/x-amz-json-1.0"},
                {"X-Amz-Date", std::string(timestamp)},
                {"X-Amz-Target", "DynamoDB_20120810.ListTables"}};
    std::vector<std::string_view> names = {"content-type", "host", "x-amz-date", "x-amz-target"};
    headers_.emplace_back("Authorization",
                          Sign(View(), names, key, secret, "us-east-1", timestamp));
  }

  RequestView View() const { return RequestView{"POST", target_, headers_, body_}; }
  void SetHeader(std::string_view name, std::string value) {
    for (auto& header : headers_) {
      if (header.first == name) header.second = std::move(value);
    }
  }
  Error Failure() {
    auto verified = Verify(View(), credentials_, now_);
    EXPECT_FALSE(verified.ok());
    return verified.ok() ? Error::Internal("verified") : verified.error();
  }

  Credentials credentials_;
  Clock::time_point now_;
  std::string target_ = "/";
  std::string body_ = "{}";
  std::vector<Header> headers_;
};

TEST_F(VerifyTest, AcceptsTheRightSecret) {
  SignRequest();
  auto verified = Verify(View(), credentials_, now_);
  ASSERT_TRUE(verified.ok()) << verified.error().message();
  EXPECT_EQ(verified->access_key, "AKIDTEST");
  EXPECT_EQ(verified->region, "us-east-1");
}

TEST_F(VerifyTest, RejectsAWrongSecret) {
  SignRequest("not-the-secret");
  Error error = Failure();
  EXPECT_EQ(error.type(), "com.amazon.coral.service#InvalidSignatureException");
  EXPECT_EQ(error.message(),
            "The request signature we calculated does not match the signature you provided. "
            "Check your AWS Secret Access Key and signing method. Consult the service "
            "documentation for details.");
}

TEST_F(VerifyTest, RejectsAChangedBodyPathOrSignedHeader) {
  SignRequest();
  body_ = R"({"Limit":1})";
  EXPECT_EQ(Failure().code(), ErrorCode::kInvalidSignature);
  body_ = "{}";
  target_ = "/other";
  EXPECT_EQ(Failure().code(), ErrorCode::kInvalidSignature);
  target_ = "/?extra=1";
  EXPECT_EQ(Failure().code(), ErrorCode::kInvalidSignature);
  target_ = "/";
  SetHeader("X-Amz-Target", "DynamoDB_20120810.DeleteTable");
  EXPECT_EQ(Failure().code(), ErrorCode::kInvalidSignature);
}

TEST_F(VerifyTest, UnknownAccessKeyIsAnUnrecognizedClient) {
  SignRequest("s3cret", "20260101T120000Z", "AKIDUNKNOWN");
  Error error = Failure();
  EXPECT_EQ(error.type(), "com.amazon.coral.service#UnrecognizedClientException");
  EXPECT_EQ(error.message(), "The security token included in the request is invalid.");
}

TEST_F(VerifyTest, UnsignedRequestIsMissingItsToken) {
  EXPECT_EQ(Failure().type(), "com.amazon.coral.service#MissingAuthenticationTokenException");
  headers_ = {{"Authorization", "Basic dXNlcjpwYXNz"}};
  EXPECT_EQ(Failure().message(), "Request is missing Authentication Token");
  EXPECT_FALSE(HasSignature(RequestView{"POST", "/?a=1", {}, ""}));
  EXPECT_TRUE(HasSignature(RequestView{"POST", "/?X-Amz-Date=1", {}, ""}));
}

TEST_F(VerifyTest, IncompleteSignatureListsWhatIsMissing) {
  headers_ = {{"Host", "localhost"},
              {"Authorization", "AWS4-HMAC-SHA256 SignedHeaders=host, Signature="}};
  Error error = Failure();
  EXPECT_EQ(error.type(), "com.amazon.coral.service#IncompleteSignatureException");
  EXPECT_EQ(error.message(),
            "Authorization header requires 'Credential' parameter. Authorization header "
            "requires 'Signature' parameter. Authorization header requires existence of either "
            "a 'X-Amz-Date' or a 'Date' header. Authorization=AWS4-HMAC-SHA256 "
            "SignedHeaders=host, Signature=");
  headers_ = {{"Authorization", "AWS4-HMAC-SHA256 Signature=b, Credential, SignedHeaders=host"}};
  EXPECT_EQ(Failure().message(),
            "'Credential' not a valid key=value pair (missing equal-sign) in Authorization "
            "header: 'AWS4-HMAC-SHA256 Signature=b, Credential, SignedHeaders=host'.");
}

TEST_F(VerifyTest, DateMustBeIsoBasicFormat) {
  SignRequest();
  SetHeader("X-Amz-Date", "2026-01-01T12:00:00Z");
  Error error = Failure();
  EXPECT_EQ(error.code(), ErrorCode::kIncompleteSignature);
  EXPECT_EQ(error.message(),
            "Date must be in ISO-8601 'basic format'. Got '2026-01-01T12:00:00Z'. See "
            "http://en.wikipedia.org/wiki/ISO_8601");
}

TEST_F(VerifyTest, DateMustBeWithinFifteenMinutes) {
  SignRequest("s3cret", "20260101T114459Z");
  Error error = Failure();
  EXPECT_EQ(error.code(), ErrorCode::kInvalidSignature);
  EXPECT_EQ(error.message(),
            "Signature expired: 20260101T114459Z is now earlier than 20260101T114500Z "
            "(20260101T120000Z - 15 min.)");
  SignRequest("s3cret", "20260101T121501Z");
  EXPECT_EQ(Failure().message(),
            "Signature not yet current: 20260101T121501Z is still later than 20260101T121500Z "
            "(20260101T120000Z + 15 min.)");
  SignRequest("s3cret", "20260101T114500Z");  // exactly 15 minutes old: still valid
  EXPECT_TRUE(Verify(View(), credentials_, now_).ok());
}

TEST_F(VerifyTest, HostMustBeSigned) {
  SignRequest();
  SetHeader("Authorization",
            "AWS4-HMAC-SHA256 Credential=AKIDTEST/20260101/us-east-1/dynamodb/aws4_request, "
            "SignedHeaders=x-amz-date, Signature=00");
  Error error = Failure();
  EXPECT_EQ(error.code(), ErrorCode::kInvalidSignature);
  EXPECT_EQ(error.message(), "'Host' must be a 'SignedHeader' in the AWS Authorization.");
}

TEST_F(VerifyTest, AlgorithmAndCredentialShape) {
  SignRequest();
  SetHeader("Authorization",
            "AWS4-HMAC-SHA512 Credential=AKIDTEST/20260101/us-east-1/dynamodb/aws4_request, "
            "SignedHeaders=host, Signature=00");
  EXPECT_EQ(Failure().message(),
            "Unsupported AWS 'algorithm': 'AWS4-HMAC-SHA512' (only AWS4-HMAC-SHA256 for now). ");
  SetHeader("Authorization",
            "AWS4-HMAC-SHA256 Credential=AKIDTEST/20260101/us-east-1/dynamodb, "
            "SignedHeaders=host, Signature=00");
  Error error = Failure();
  EXPECT_EQ(error.code(), ErrorCode::kIncompleteSignature);
  EXPECT_EQ(error.message(),
            "Credential must have exactly 5 slash-delimited elements, e.g. "
            "keyid/date/region/service/term, got 'AKIDTEST/20260101/us-east-1/dynamodb'");
}

TEST_F(VerifyTest, CredentialScopeProblemsAreReportedTogether) {
  SignRequest();
  SetHeader("Authorization",
            "AWS4-HMAC-SHA256 Credential=AKIDTEST/20251231/us-east-1/s3/aws4, "
            "SignedHeaders=host, Signature=00");
  Error error = Failure();
  EXPECT_EQ(error.code(), ErrorCode::kInvalidSignature);
  EXPECT_EQ(error.message(),
            "Credential should be scoped to correct service: 'dynamodb'. Credential should be "
            "scoped with a valid terminator: 'aws4_request', not 'aws4'. Date in Credential "
            "scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '20251231' "
            "!= '20260101', from '20260101T120000Z'.");
}

TEST_F(VerifyTest, AnyRegionIsAccepted) {
  headers_ = {{"Host", "localhost:8000"}, {"X-Amz-Date", "20260101T120000Z"}};
  std::vector<std::string_view> names = {"host", "x-amz-date"};
  headers_.emplace_back("Authorization",
                        Sign(View(), names, "AKIDTEST", "s3cret", "local", "20260101T120000Z"));
  auto verified = Verify(View(), credentials_, now_);
  ASSERT_TRUE(verified.ok()) << verified.error().message();
  EXPECT_EQ(verified->region, "local");
}

TEST_F(VerifyTest, ConfiguredSessionTokenMustBeSent) {
  headers_ = {{"Host", "localhost:8000"}, {"X-Amz-Date", "20260101T120000Z"}};
  std::vector<std::string_view> names = {"host", "x-amz-date"};
  headers_.emplace_back("Authorization",
                        Sign(View(), names, "AKIDTOKEN", "other", "us-east-1", "20260101T120000Z"));
  Error error = Failure();
  EXPECT_EQ(error.code(), ErrorCode::kUnrecognizedClient);
  EXPECT_EQ(error.message(), "The security token included in the request is invalid");

  headers_ = {{"Host", "localhost:8000"},
              {"X-Amz-Date", "20260101T120000Z"},
              {"X-Amz-Security-Token", "token123"}};
  names = {"host", "x-amz-date", "x-amz-security-token"};
  headers_.emplace_back("Authorization",
                        Sign(View(), names, "AKIDTOKEN", "other", "us-east-1", "20260101T120000Z"));
  EXPECT_TRUE(Verify(View(), credentials_, now_).ok());
}

// A presigned request: the signature in the query, over every other parameter.
class PresignedTest : public VerifyTest {
 protected:
  void Presign(std::string_view expires = "300", std::string_view timestamp = "20260101T120000Z",
               std::string_view secret = "s3cret") {
    headers_ = {{"Host", "localhost:8000"}};
    target_ = "/?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDTEST%2F" +
              std::string(timestamp.substr(0, 8)) +
              "%2Fus-east-1%2Fdynamodb%2Faws4_request&X-Amz-Date=" + std::string(timestamp) +
              "&X-Amz-Expires=" + std::string(expires) + "&X-Amz-SignedHeaders=host";
    SignedRequest signed_request;
    signed_request.presigned = true;
    signed_request.signed_headers = "host";
    const std::string canonical = CanonicalRequest(View(), signed_request, Sha256Hex(body_));
    const std::string signature = SignatureOf(
        SigningKey(secret, timestamp.substr(0, 8), "us-east-1", "dynamodb"),
        StringToSign(timestamp,
                     std::string(timestamp.substr(0, 8)) + "/us-east-1/dynamodb/aws4_request",
                     canonical));
    target_ += "&X-Amz-Signature=" + signature;
  }
};

TEST_F(PresignedTest, AcceptsAPresignedQuery) {
  Presign();
  auto verified = Verify(View(), credentials_, now_);
  ASSERT_TRUE(verified.ok()) << verified.error().message();
  EXPECT_EQ(verified->access_key, "AKIDTEST");
  Presign("300", "20260101T120000Z", "wrong");
  EXPECT_EQ(Failure().code(), ErrorCode::kInvalidSignature);
}

TEST_F(PresignedTest, HonoursXAmzExpires) {
  Presign("60", "20260101T115800Z");
  Error error = Failure();
  EXPECT_EQ(error.code(), ErrorCode::kInvalidSignature);
  EXPECT_EQ(error.message(),
            "Signature expired: 20260101T115800Z is now earlier than 20260101T115900Z "
            "(20260101T120000Z - 60 sec.)");
  Presign("3600", "20260101T113000Z");  // 30 minutes old, valid for an hour
  EXPECT_TRUE(Verify(View(), credentials_, now_).ok());
  Presign("604801");
  EXPECT_EQ(Failure().message(),
            "X-Amz-Expires must be less than a week (in seconds) that is 604800");
}

TEST_F(PresignedTest, MissingParametersAreIncomplete) {
  target_ = "/?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260101T120000Z";
  Error error = Failure();
  EXPECT_EQ(error.code(), ErrorCode::kIncompleteSignature);
  EXPECT_EQ(error.message(),
            "AWS query-string parameters must include 'X-Amz-Credential'. Re-examine the "
            "query-string parameters. AWS query-string parameters must include "
            "'X-Amz-Signature'. Re-examine the query-string parameters. AWS query-string "
            "parameters must include 'X-Amz-SignedHeaders'. Re-examine the query-string "
            "parameters.");
}

}  // namespace
}  // namespace ddbd::server::http::sigv4
