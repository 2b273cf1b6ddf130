import HTTPCoreRedaction
import XCTest

/// Sensitive names are matched by words (see `Redactor.defaultSensitiveWords`).
final class NameKeyTests: XCTestCase {
    func testBodyKeysMatchSensitiveWordsAtStandard() {
        let masked = [
            "password", "newPassword", "new_password", "password_confirmation", "passwordConfirmation", "current_password",
            "CURRENT-PASSWORD", "oldPasswd", "auth_token", "authToken", "refreshToken", "refresh_token", "refresh",
            "REFRESH", "private_key", "privateKey", "PRIVATE_KEY", "client_secret", "clientSecret", "otp", "otpCode",
            "session_id", "sessionId", "SESSIONID", "stripeApiKey", "X-Api-Key", "APIKey", "apiKeys", "oauth2Token",
            "card_number", "cardNumber", "creditCardNumber", "pinCode", "user pin", "secrets", "tokens", "jwt",
            "csrfToken", "xsrf", "auth", "secret_key_base", "aws_secret_access_key", "passphrase",
        ]
        let kept = [
            "keyboard", "keyboardLayout", "sortKey", "primary_key_name", "passwordless", "shipping", "spinner",
            "tokenizer", "secretary", "monkey", "token_type", "tokenType", "password_expires_at", "passwordExpiresAt",
            "secret_name", "token_url", "expires_in", "username", "email", "id", "cookies_accepted", "keys",
            "otpauth", "pinned", "autopilot", "key",
        ]
        for key in masked {
            XCTAssertTrue(Redactor.standard.masksBodyKey(key), "\(key) should be masked")
        }
        for key in kept {
            XCTAssertFalse(Redactor.standard.masksBodyKey(key), "\(key) should be kept")
        }
    }

    func testLookAlikeCharactersDoNotHideAName() {
        let disguised = [
            "pa\u{017F}\u{017F}word",  // long s
            "\u{FF50}\u{FF41}\u{FF53}\u{FF53}\u{FF57}\u{FF4F}\u{FF52}\u{FF44}",  // full-width
            "pass\u{200B}word",  // zero-width space
            "pass\u{00AD}word",  // soft hyphen
            "PA\u{017F}SWORD", "to\u{212A}en",  // Kelvin sign K
            "to\u{FEFF}ken", "tok\u{0000}en", "api\u{2060}key",
        ]
        for key in disguised {
            XCTAssertTrue(Redactor.standard.masksBodyKey(key), "\(key.unicodeScalars.map { String($0.value, radix: 16) }) should be masked")
            XCTAssertTrue(Redactor.standard.masksQueryItem(named: key), "query \(key)")
        }
        XCTAssertFalse(Redactor.standard.masksBodyKey("n\u{00E4}me"))
        XCTAssertFalse(Redactor.standard.masksBodyKey("\u{65E5}\u{672C}"))
    }

    func testCyrillicGreekAndTurkishLookAlikesMatchAsTheirLatinSkeleton() {
        let headers = [
            "\u{0410}uthorization",           // Cyrillic capital A
            "X-\u{0410}pi-K\u{0435}y",        // Cyrillic A and e
            "\u{0421}ookie",                  // Cyrillic capital Es
            "X-\u{0391}uth-\u{03A4}oken",     // Greek capital Alpha and Tau
            "X-Se\u{0455}\u{0455}ion",        // Cyrillic dze
        ]
        for name in headers {
            XCTAssertTrue(Redactor.standard.masksHeader(named: name), name)
        }
        let keys = [
            "p\u{0430}ssword",                // Cyrillic a
            "t\u{03BF}ken",                   // Greek omicron
            "s\u{0435}cr\u{0435}t",           // Cyrillic ie
            "P\u{0130}N",                     // Turkish dotted capital I
            "p\u{0131}n",                     // Turkish dotless i
            "\u{0440}\u{0430}ssw\u{043E}rd",  // Cyrillic er, a, o
            "api_k\u{0435}y",
        ]
        for key in keys {
            XCTAssertTrue(Redactor.standard.masksBodyKey(key), key)
            XCTAssertTrue(Redactor.standard.masksQueryItem(named: key), "query \(key)")
        }
        let json = Redactor.standard.redactedBody(Data(#"{"p\#u{0430}ssword":"S3CR3T","name":"Ada"}"#.utf8), contentType: "application/json")
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"{"p\#u{0430}ssword":"[REDACTED]","name":"Ada"}"#)
        XCTAssertFalse(Redactor.standard.masksBodyKey("\u{043A}\u{043E}\u{0434}"), "a Cyrillic word that spells nothing sensitive")
    }

    func testArmenianAndSmallCapitalLookAlikesMatchAsTheLettersTheyMimic() {
        let disguised = [
            "passw\u{0585}rd",                                  // Armenian oh
            "\u{057D}ser_t\u{0585}ken",                         // Armenian seh for u, oh for o
            "\u{1D18}\u{1D00}\u{A731}\u{A731}\u{1D21}\u{1D0F}\u{0280}\u{1D05}",  // small capitals: ᴘᴀꜱꜱᴡᴏʀᴅ
            "\u{1D1B}\u{1D0F}\u{1D0B}\u{1D07}\u{0274}",            // ᴛᴏᴋᴇɴ
            "api_\u{1D0B}ey",
        ]
        for key in disguised {
            XCTAssertTrue(Redactor.standard.masksBodyKey(key), "\(key.unicodeScalars.map { String($0.value, radix: 16) }) should be masked")
            XCTAssertTrue(Redactor.standard.masksHeader(named: "X-" + key), "header X-\(key)")
        }
        let json = Redactor.standard.redactedBody(Data(#"{"\#u{1D18}\#u{1D00}ssword":"S3CR3T","n":1}"#.utf8), contentType: "application/json")
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"{"\#u{1D18}\#u{1D00}ssword":"[REDACTED]","n":1}"#)
        XCTAssertFalse(Redactor.standard.masksBodyKey("\u{0570}\u{0561}\u{0575}"), "an Armenian word that spells nothing sensitive")
    }

    func testWordRulesApplyToHeaderAndQueryNamesToo() {
        let redactor = Redactor.standard
        XCTAssertTrue(redactor.masksHeader(named: "X-Shopify-Access-Token"))
        XCTAssertTrue(redactor.masksHeader(named: "X-Vault-Token"))
        XCTAssertTrue(redactor.masksHeader(named: "X-Client-Secret"))
        XCTAssertFalse(redactor.masksHeader(named: "X-Token-Type"))
        XCTAssertFalse(redactor.masksHeader(named: "Sec-WebSocket-Key"))
        XCTAssertFalse(redactor.masksHeader(named: "Access-Control-Allow-Credentials"))
        XCTAssertTrue(redactor.masksHeader(named: "X-Custom-Auth"), "a header word")
        XCTAssertTrue(redactor.masksQueryItem(named: "authToken"))
        XCTAssertTrue(redactor.masksQueryItem(named: "X-Amz-Signature"))
        XCTAssertFalse(redactor.masksQueryItem(named: "country_code"), "`code` is a whole-name default only")
        XCTAssertFalse(redactor.masksQueryItem(named: "keyword"))
    }

    func testConfiguredNamesMatchAsWordsAndAllowedNamesWhole() {
        let redactor = Redactor(level: .standard, sensitiveBodyKeys: ["email"], allowedBodyKeys: ["auth_token", "key"])
        XCTAssertTrue(redactor.masksBodyKey("email"))
        XCTAssertTrue(redactor.masksBodyKey("billingEmail"))
        XCTAssertFalse(redactor.masksBodyKey("emails"))
        XCTAssertFalse(redactor.masksBodyKey("authToken"), "allowed as a whole name")
        XCTAssertTrue(redactor.masksBodyKey("refreshToken"), "allowing one name does not allow the word")
        XCTAssertFalse(redactor.masksBodyKey("key"))
        let sensitiveWins = Redactor(level: .standard, sensitiveBodyKeys: ["token"], allowedBodyKeys: ["auth_token"])
        XCTAssertTrue(sensitiveWins.masksBodyKey("auth_token"))
        let describedButConfigured = Redactor(level: .standard, sensitiveBodyKeys: ["token_type"])
        XCTAssertTrue(describedButConfigured.masksBodyKey("tokenType"))
    }

    func testJSONBodiesUseTheWordRules() {
        let input = #"{"newPassword":"a","token_type":"bearer","auth_token":"b","user":{"pa\u017f\u017fword":"c","keyboard":"qwerty"}}"#
        let output = String(decoding: Redactor.standard.redactedBody(Data(input.utf8), contentType: "application/json"), as: UTF8.self)
        XCTAssertEqual(
            output,
            #"{"newPassword":"[REDACTED]","token_type":"bearer","auth_token":"[REDACTED]","user":{"pa\u017f\u017fword":"[REDACTED]","keyboard":"qwerty"}}"#
        )
    }

    func testANameThatReadsAsAGeneratedValueHasNoWordsToMatch() {
        let redactor = Redactor.standard
        // Base64 standing where a name would: `SSN`, `Pin` and `Otp` are chance.
        for name in ["zH1t8H4ILV6vBt5dTPsdPEiuzB3cSSN44", "aB3dPinQ7xK2mW9vT4", "k9OtpZ2aB7cD4eF1gH"] {
            XCTAssertEqual(redactor.redactedText("\(name)=abc1"), "\(name)=abc1", name)
            XCTAssertEqual(redactor.redactedHeaderValue("v", name: name), "v", name)
        }
        // Names with words, digits among them, keep their words.
        for name in ["user1Password", "customerSSN", "a1b2c3Password", "X-Api-Key-2024-Rotation"] {
            XCTAssertEqual(redactor.redactedText("\(name)=abc1"), "\(name)=[REDACTED]", name)
        }
    }
}
