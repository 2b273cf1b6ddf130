extension RedactionFixture {
    /// OAuth, OIDC, pagination, forms and multipart: the identity corpus.
    ///
    /// Token responses and requests of OAuth 2.0 (RFC 6749, 7662, 8628), OpenID Connect and
    /// the providers that document them (Google, Okta, Microsoft), next to the bodies that
    /// look like them and hold nothing secret: discovery documents, key sets, userinfo,
    /// introspection results and pagination cursors. The forms and multipart bodies are
    /// requests a browser or `curl -F` sends.
    public static let identityCorpus: [RedactionFixture] = [
        // MARK: OAuth 2.0

        RedactionFixture("OAuth 2.0 token response", source: "https://www.rfc-editor.org/rfc/rfc6749#section-5.1", contentType: "application/json;charset=UTF-8", body: #"""
        {
          "access_token": "2YotnFZFEjr1zCsicMWpAA",
          "token_type": "Bearer",
          "expires_in": 3600,
          "refresh_token": "tGzv3JOkF0XG5Qx2TlKWIA",
          "scope": "read write"
        }
        """#, secrets: ["2YotnFZFEjr1zCsicMWpAA", "tGzv3JOkF0XG5Qx2TlKWIA"]),

        RedactionFixture("OAuth 2.0 error response (invalid_grant)", source: "https://www.rfc-editor.org/rfc/rfc6749#section-5.2", contentType: "application/json;charset=UTF-8", body: #"""
        {
          "error": "invalid_grant",
          "error_description": "The authorization code is invalid, expired or was issued to another client.",
          "error_uri": "https://server.example.com/docs/errors#invalid_grant"
        }
        """#),

        RedactionFixture("OAuth 2.0 authorization code token request", source: "https://www.rfc-editor.org/rfc/rfc6749#section-4.1.3", contentType: "application/x-www-form-urlencoded", body: #"""
        grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA&redirect_uri=https%3A%2F%2Fclient%2Eexample%2Ecom%2Fcb&client_id=s6BhdRkqt3&client_secret=7Fjfp0ZBr1KtDRbnfVdmIw
        """#, secrets: ["SplxlOBeZQQYbYS6WxSbIA", "7Fjfp0ZBr1KtDRbnfVdmIw"]),

        RedactionFixture("OAuth 2.0 refresh token request", source: "https://www.rfc-editor.org/rfc/rfc6749#section-6", contentType: "application/x-www-form-urlencoded", body: #"""
        grant_type=refresh_token&refresh_token=tGzv3JOkF0XG5Qx2TlKWIA&scope=read&client_id=s6BhdRkqt3&client_secret=7Fjfp0ZBr1KtDRbnfVdmIw
        """#, secrets: ["tGzv3JOkF0XG5Qx2TlKWIA", "7Fjfp0ZBr1KtDRbnfVdmIw"]),

        RedactionFixture("OAuth 2.0 client credentials token request", source: "https://www.rfc-editor.org/rfc/rfc6749#section-4.4.2", contentType: "application/x-www-form-urlencoded", body: #"""
        grant_type=client_credentials&scope=orders%3Aread%20orders%3Awrite&client_id=billing-worker&client_secret=Zq8vN3kR-w5Ty1Lp_Xc7Hs2Jm9Bd4Fg6
        """#, secrets: ["Zq8vN3kR-w5Ty1Lp_Xc7Hs2Jm9Bd4Fg6"]),

        RedactionFixture("OAuth 2.0 token introspection request", source: "https://www.rfc-editor.org/rfc/rfc7662#section-2.1", contentType: "application/x-www-form-urlencoded", body: #"""
        token=mF_9.B5f-4.1JqM&token_type_hint=access_token
        """#, secrets: ["mF_9.B5f-4.1JqM"]),

        RedactionFixture("OAuth 2.0 token introspection response", source: "https://www.rfc-editor.org/rfc/rfc7662#section-2.2", contentType: "application/json", body: #"""
        {
          "active": true,
          "client_id": "l238j323ds-23ij4",
          "username": "jdoe",
          "scope": "read write dolphin",
          "token_type": "Bearer",
          "sub": "Z5O3upPC88QrAjx00dis",
          "aud": "https://protected.example.net/resource",
          "iss": "https://server.example.com/",
          "exp": 1419356238,
          "iat": 1419350238,
          "extension_field": "twenty-seven"
        }
        """#),

        RedactionFixture("OAuth 2.0 device authorization response", source: "https://www.rfc-editor.org/rfc/rfc8628#section-3.2", contentType: "application/json", body: #"""
        {
          "device_code": "GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS",
          "user_code": "WDJB-MJHT",
          "verification_uri": "https://example.com/device",
          "verification_uri_complete": "https://example.com/device?user_code=WDJB-MJHT",
          "expires_in": 1800,
          "interval": 5
        }
        """#, secrets: ["GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS"]),

        RedactionFixture("OAuth 2.0 device access token request", source: "https://www.rfc-editor.org/rfc/rfc8628#section-3.4", contentType: "application/x-www-form-urlencoded", body: #"""
        grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS&client_id=1406020730
        """#, secrets: ["GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS"]),

        // MARK: OpenID Connect and JWKS

        RedactionFixture("OpenID Connect discovery document", source: "https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfigurationResponse", contentType: "application/json", body: #"""
        {
          "issuer": "https://server.example.com",
          "authorization_endpoint": "https://server.example.com/connect/authorize",
          "token_endpoint": "https://server.example.com/connect/token",
          "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "private_key_jwt"],
          "token_endpoint_auth_signing_alg_values_supported": ["RS256", "ES256"],
          "userinfo_endpoint": "https://server.example.com/connect/userinfo",
          "check_session_iframe": "https://server.example.com/connect/check_session",
          "end_session_endpoint": "https://server.example.com/connect/end_session",
          "jwks_uri": "https://server.example.com/jwks.json",
          "registration_endpoint": "https://server.example.com/connect/register",
          "scopes_supported": ["openid", "profile", "email", "address", "phone", "offline_access"],
          "response_types_supported": ["code", "code id_token", "id_token", "id_token token"],
          "grant_types_supported": ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
          "acr_values_supported": ["urn:mace:incommon:iap:silver", "urn:mace:incommon:iap:bronze"],
          "subject_types_supported": ["public", "pairwise"],
          "userinfo_signing_alg_values_supported": ["RS256", "ES256", "HS256"],
          "userinfo_encryption_alg_values_supported": ["RSA1_5", "A128KW"],
          "userinfo_encryption_enc_values_supported": ["A128CBC-HS256", "A128GCM"],
          "id_token_signing_alg_values_supported": ["RS256", "ES256", "HS256"],
          "id_token_encryption_alg_values_supported": ["RSA1_5", "A128KW"],
          "id_token_encryption_enc_values_supported": ["A128CBC-HS256", "A128GCM"],
          "request_object_signing_alg_values_supported": ["none", "RS256", "ES256"],
          "display_values_supported": ["page", "popup"],
          "claim_types_supported": ["normal", "distributed"],
          "claims_supported": ["sub", "iss", "auth_time", "acr", "name", "given_name", "family_name", "nickname", "profile", "picture", "website", "email", "email_verified", "locale", "zoneinfo", "http://example.info/claims/groups"],
          "claims_parameter_supported": true,
          "code_challenge_methods_supported": ["S256"],
          "service_documentation": "http://server.example.com/connect/service_documentation.html",
          "ui_locales_supported": ["en-US", "en-GB", "en-CA", "fr-FR", "fr-CA"]
        }
        """#),

        RedactionFixture("OpenID Connect token response with an ID token", source: "https://openid.net/specs/openid-connect-core-1_0.html#TokenResponse", contentType: "application/json", body: #"""
        {
          "access_token": "SlAV32hkKG",
          "token_type": "Bearer",
          "refresh_token": "8xLOxBtZp8",
          "expires_in": 3600,
          "id_token": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6IjFlOWdkazcifQ.eyJpc3MiOiJodHRwczovL3NlcnZlci5leGFtcGxlLmNvbSIsInN1YiI6IjI0ODI4OTc2MTAwMSIsImF1ZCI6InM2QmhkUmtxdDMiLCJub25jZSI6Im4tMFM2X1d6QTJNaiIsImV4cCI6MTMxMTI4MTk3MCwiaWF0IjoxMzExMjgwOTcwfQ.Anm5sB9brpl_IdFRTL1jjYGTSeGbo2q9NpPs1-7E2IM7RsbnrS2Qwo-LEZaWt1cDsoo0td7S5j1ddubd4s2JqL-azF2kOyQLfAawPAhHvRYAQTNt6p3XM1ZIt6jXSEbkYrj6KMaLj_sGHjVImLihlB0BViUET5T-jbXfn3Smz3ZATHghC3qCHoJsVFEVqdY5oRv6lsc1MSuCvq9wlpr_ch0tDia44Coc1vj0iUkJFRd1H7rnIB2BzsmGSSSsHxYFEAe7RDLitH6KTDpRz6DCvj9yruf84E3y56LO8xhDKKAnlDbJcXfvOoomq7IS35h4iEI5CgGsHLuc5PwYxFbKvA"
        }
        """#, secrets: [
            "SlAV32hkKG",
            "8xLOxBtZp8",
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6IjFlOWdkazcifQ.eyJpc3MiOiJodHRwczovL3NlcnZlci5leGFtcGxlLmNvbSIsInN1YiI6IjI0ODI4OTc2MTAwMSIsImF1ZCI6InM2QmhkUmtxdDMiLCJub25jZSI6Im4tMFM2X1d6QTJNaiIsImV4cCI6MTMxMTI4MTk3MCwiaWF0IjoxMzExMjgwOTcwfQ.Anm5sB9brpl_IdFRTL1jjYGTSeGbo2q9NpPs1-7E2IM7RsbnrS2Qwo-LEZaWt1cDsoo0td7S5j1ddubd4s2JqL-azF2kOyQLfAawPAhHvRYAQTNt6p3XM1ZIt6jXSEbkYrj6KMaLj_sGHjVImLihlB0BViUET5T-jbXfn3Smz3ZATHghC3qCHoJsVFEVqdY5oRv6lsc1MSuCvq9wlpr_ch0tDia44Coc1vj0iUkJFRd1H7rnIB2BzsmGSSSsHxYFEAe7RDLitH6KTDpRz6DCvj9yruf84E3y56LO8xhDKKAnlDbJcXfvOoomq7IS35h4iEI5CgGsHLuc5PwYxFbKvA",
        ]),

        RedactionFixture("OpenID Connect userinfo response", source: "https://openid.net/specs/openid-connect-core-1_0.html#UserInfoResponse", contentType: "application/json", body: #"""
        {
          "sub": "248289761001",
          "name": "Jane Doe",
          "given_name": "Jane",
          "family_name": "Doe",
          "preferred_username": "j.doe",
          "email": "janedoe@example.com",
          "email_verified": true,
          "picture": "http://example.com/janedoe/me.jpg"
        }
        """#),

        RedactionFixture("JSON Web Key Set (two RSA keys, one EC key)", source: "https://www.rfc-editor.org/rfc/rfc7517#appendix-A.1", contentType: "application/json", body: #"""
        {
          "keys": [
            {
              "kty": "RSA",
              "use": "sig",
              "kid": "2011-04-29",
              "alg": "RS256",
              "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
              "e": "AQAB"
            },
            {
              "kty": "RSA",
              "use": "sig",
              "kid": "1e9gdk7",
              "alg": "RS256",
              "n": "wfv11QIe0Q5GBunWHc1kirV6rvidtxLRuAPRp0mtmiR9uUo1uz2IKCxgKgpz0BY7QjGEGSJDTpCjDHHDEDc5R24yElCfd9R9Bwc3_q3sH5CwzWYF-EEQ0SL8hp1eHNatEQsS0fl7Jxbp_oZFGvwHUie7mSaTkJm3mJ58uRrdq2MPcEbX4VY6E8e2-uzIEi6ibwQF00l68WyvkkVteh2plr5mB4r1dDC5q-PEVR_0kdtohHxg-ZQAZ3MB_4yZEGweWX9K86su-Mqm9Uvc7RwsyZhAMATXf2JgRp2Ae2pr5nKbmVjgilXTfyAzROR9_kTTDhdvCnK9lgcHEcvOHJMAKQ",
              "e": "AQAB"
            },
            {
              "kty": "EC",
              "use": "enc",
              "kid": "1",
              "crv": "P-256",
              "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
              "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"
            }
          ]
        }
        """#),

        // MARK: Providers

        RedactionFixture("Google OAuth 2.0 authorization code exchange response", source: "https://developers.google.com/identity/protocols/oauth2/web-server#exchange-authorization-code", contentType: "application/json; charset=utf-8", body: #"""
        {
          "access_token": "1/fFAGRNJru1FTz70BzhT3Zg",
          "expires_in": 3920,
          "token_type": "Bearer",
          "scope": "https://www.googleapis.com/auth/drive.metadata.readonly https://www.googleapis.com/auth/calendar.readonly",
          "refresh_token": "1//xEoDL4iW3cxlI7yDbSRFYNG01kVKM2C-259HOF2aQbI",
          "refresh_token_expires_in": 604800
        }
        """#, secrets: ["1/fFAGRNJru1FTz70BzhT3Zg", "1//xEoDL4iW3cxlI7yDbSRFYNG01kVKM2C-259HOF2aQbI"]),

        RedactionFixture("Okta authorization server /token response", source: "https://developer.okta.com/docs/reference/api/oidc/#token", contentType: "application/json", body: #"""
        {
          "token_type": "Bearer",
          "expires_in": 3600,
          "access_token": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6IlprdmVsTE5fc2Vpazd3NHBjX3ByQ2NmVWYtaDJoRmZpd2tEZUNyczBpVWMifQ.eyJ2ZXIiOjEsImp0aSI6IkFULk1OQW9FUV9qYktxb2luclFvMUQwWEtqTVgyOFU1ZDdac3pCY2VvdDctVHMiLCJpc3MiOiJodHRwczovL2Rldi0xMzMzMzcub2t0YS5jb20vb2F1dGgyL2RlZmF1bHQiLCJhdWQiOiJhcGk6Ly9kZWZhdWx0IiwiaWF0IjoxNjg4MTQ2NDcxLCJleHAiOjE2ODgxNTAwNzEsImNpZCI6IjBvYTFqOGIybTNRZnpZcERkNWQ3IiwidWlkIjoiMDB1MWo4YjJtNEFiQ2RFZkc1ZDciLCJzY3AiOlsib3BlbmlkIiwiZW1haWwiLCJvZmZsaW5lX2FjY2VzcyJdLCJhdXRoX3RpbWUiOjE2ODgxNDU5MDksInN1YiI6ImphbmUuZG9lQGV4YW1wbGUuY29tIn0.t2jDCZaswSUWukg7ODlsyQsLSUxsZ3lsGDN97omTue19V1v1-a1tNJArmYYUQUgYToveCawGje6qlfLVYuffH0b-wBmOl5BXZhXzRBPPVRY6kZhlLLuVu3irXMM1hE-JdijqV9dBqNPCyn0uvXdGO8dIY7T1-kLzLbqSukEKtBoBJ5hG2yYZ0CMTntIfSJWWQpuVFvtm0eOgbwveiYW1mLWVVac7E5DfROUE_Cnrk8IMYRrE2bs8proPPBEOmvmMzgJ5pPrU0982E7uncq45AzKnkaHWqx6RSzb67qrg60P2anhOk7obaKzqpohPYxN7NQPLkd0neR3TL37D5R0VAw",
          "scope": "openid email offline_access",
          "refresh_token": "a9VpZDRCeFh3Nkk2VdY",
          "id_token": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImZBb21BdnNXeUFXRGxuQnVKYkhvcXFDUmNSZG1zZzR2cmkwT0lDeGJJZ3MifQ.eyJzdWIiOiIwMHUxajhiMm00QWJDZEVmRzVkNyIsImVtYWlsIjoiamFuZS5kb2VAZXhhbXBsZS5jb20iLCJ2ZXIiOjEsImlzcyI6Imh0dHBzOi8vZGV2LTEzMzMzNy5va3RhLmNvbS9vYXV0aDIvZGVmYXVsdCIsImF1ZCI6IjBvYTFqOGIybTNRZnpZcERkNWQ3IiwiaWF0IjoxNjg4MTQ2NDcxLCJleHAiOjE2ODgxNTAwNzEsImp0aSI6IklELnJhZENRTU9RVW15dmNUQm1tSUwwSjZCYVM2MGFwVUVpQzctdkk3cE9ta3ciLCJhbXIiOlsicHdkIl0sImlkcCI6IjAwbzFqOGIybTJYeVowMTIzZDciLCJhdXRoX3RpbWUiOjE2ODgxNDU5MDksImF0X2hhc2giOiJmUGxzdlZzekkyOUxVMlVoRHlKOXZnIn0.abWLqjSkDQi7M8pN1sTW-4WFY2LRSlAWdFGYbbkqAIEmzANIfXPAZR19UDzY3FXep9jpbCTCVx5V2SetMZVFt-yZRDzWptq9KqgSc-jE3GVtgiufXsQESgqOw_LEaTuMBAmB6UkdNNNFbwSSz7Xg-mZCpo77PET0XlShHTKZ76KlUTWbllydGISYX0DN7nuBACUDdj230ukyf0onrYjT-Dm4e2aQj-iPxELr3GFS7iCp6o6or2lf5kk2iekPP0uJuZUNy4ouwqoyvSAI-2FMdINICnlbQYLmhS6YK8D6QJe96-4enE06qZkX6HHYh-AV82znkUJi0RHzfHQIV-oDxw"
        }
        """#, secrets: [
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6IlprdmVsTE5fc2Vpazd3NHBjX3ByQ2NmVWYtaDJoRmZpd2tEZUNyczBpVWMifQ.eyJ2ZXIiOjEsImp0aSI6IkFULk1OQW9FUV9qYktxb2luclFvMUQwWEtqTVgyOFU1ZDdac3pCY2VvdDctVHMiLCJpc3MiOiJodHRwczovL2Rldi0xMzMzMzcub2t0YS5jb20vb2F1dGgyL2RlZmF1bHQiLCJhdWQiOiJhcGk6Ly9kZWZhdWx0IiwiaWF0IjoxNjg4MTQ2NDcxLCJleHAiOjE2ODgxNTAwNzEsImNpZCI6IjBvYTFqOGIybTNRZnpZcERkNWQ3IiwidWlkIjoiMDB1MWo4YjJtNEFiQ2RFZkc1ZDciLCJzY3AiOlsib3BlbmlkIiwiZW1haWwiLCJvZmZsaW5lX2FjY2VzcyJdLCJhdXRoX3RpbWUiOjE2ODgxNDU5MDksInN1YiI6ImphbmUuZG9lQGV4YW1wbGUuY29tIn0.t2jDCZaswSUWukg7ODlsyQsLSUxsZ3lsGDN97omTue19V1v1-a1tNJArmYYUQUgYToveCawGje6qlfLVYuffH0b-wBmOl5BXZhXzRBPPVRY6kZhlLLuVu3irXMM1hE-JdijqV9dBqNPCyn0uvXdGO8dIY7T1-kLzLbqSukEKtBoBJ5hG2yYZ0CMTntIfSJWWQpuVFvtm0eOgbwveiYW1mLWVVac7E5DfROUE_Cnrk8IMYRrE2bs8proPPBEOmvmMzgJ5pPrU0982E7uncq45AzKnkaHWqx6RSzb67qrg60P2anhOk7obaKzqpohPYxN7NQPLkd0neR3TL37D5R0VAw",
            "a9VpZDRCeFh3Nkk2VdY",
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImZBb21BdnNXeUFXRGxuQnVKYkhvcXFDUmNSZG1zZzR2cmkwT0lDeGJJZ3MifQ.eyJzdWIiOiIwMHUxajhiMm00QWJDZEVmRzVkNyIsImVtYWlsIjoiamFuZS5kb2VAZXhhbXBsZS5jb20iLCJ2ZXIiOjEsImlzcyI6Imh0dHBzOi8vZGV2LTEzMzMzNy5va3RhLmNvbS9vYXV0aDIvZGVmYXVsdCIsImF1ZCI6IjBvYTFqOGIybTNRZnpZcERkNWQ3IiwiaWF0IjoxNjg4MTQ2NDcxLCJleHAiOjE2ODgxNTAwNzEsImp0aSI6IklELnJhZENRTU9RVW15dmNUQm1tSUwwSjZCYVM2MGFwVUVpQzctdkk3cE9ta3ciLCJhbXIiOlsicHdkIl0sImlkcCI6IjAwbzFqOGIybTJYeVowMTIzZDciLCJhdXRoX3RpbWUiOjE2ODgxNDU5MDksImF0X2hhc2giOiJmUGxzdlZzekkyOUxVMlVoRHlKOXZnIn0.abWLqjSkDQi7M8pN1sTW-4WFY2LRSlAWdFGYbbkqAIEmzANIfXPAZR19UDzY3FXep9jpbCTCVx5V2SetMZVFt-yZRDzWptq9KqgSc-jE3GVtgiufXsQESgqOw_LEaTuMBAmB6UkdNNNFbwSSz7Xg-mZCpo77PET0XlShHTKZ76KlUTWbllydGISYX0DN7nuBACUDdj230ukyf0onrYjT-Dm4e2aQj-iPxELr3GFS7iCp6o6or2lf5kk2iekPP0uJuZUNy4ouwqoyvSAI-2FMdINICnlbQYLmhS6YK8D6QJe96-4enE06qZkX6HHYh-AV82znkUJi0RHzfHQIV-oDxw",
        ]),

        RedactionFixture("Microsoft identity platform authorization code token response", source: "https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow#redeem-a-code-for-an-access-token", contentType: "application/json; charset=utf-8", body: #"""
        {
          "token_type": "Bearer",
          "scope": "Mail.Read User.Read openid profile email",
          "expires_in": 3899,
          "ext_expires_in": 3899,
          "access_token": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6Im5PbzNaRHJPRFhFSzFqS1doWHNsSFJfS1hFZyJ9.eyJhdWQiOiIwMDAwMDAwMy0wMDAwLTAwMDAtYzAwMC0wMDAwMDAwMDAwMDAiLCJpc3MiOiJodHRwczovL3N0cy53aW5kb3dzLm5ldC85MTg4MDQwZC02YzY3LTRjNWItYjExMi0zNmEzMDRiNjZkYWQvIiwiaWF0IjoxNzAwMDAwMDAwLCJuYmYiOjE3MDAwMDAwMDAsImV4cCI6MTcwMDAwMzg5OSwiYXBwX2Rpc3BsYXluYW1lIjoiQ29udG9zbyBNYWlsIFJlYWRlciIsImFwcGlkIjoiNjczMWRlNzYtMTRhNi00OWFlLTk3YmMtNmViYTY5MTQzOTFlIiwibmFtZSI6Ik1lZ2FuIEJvd2VuIiwib2lkIjoiNDhkMzE4ODctNWZhZC00ZDczLWE5ZjUtM2MzNTZlNjhhMDM4Iiwic2NwIjoiTWFpbC5SZWFkIFVzZXIuUmVhZCBvcGVuaWQgcHJvZmlsZSBlbWFpbCIsInN1YiI6ImwzX3JvSVNRVTIyMmJVTFM5eWkyazBYcHFwT2lNejVIM1pBQ28xR2VYQSIsInRpZCI6IjkxODgwNDBkLTZjNjctNGM1Yi1iMTEyLTM2YTMwNGI2NmRhZCIsInVwbiI6Ik1lZ2FuQkBjb250b3NvLmNvbSIsInZlciI6IjEuMCJ9.N_VyCY9V6EkOCUkOsuoO87ObkVWsewHvD40kYjHjKcBw8YLSoiM6IUfXMF1jlnoIs_hmECKvyKq0Cp6eumHS8WjSfhoTPjnLeyfsC-H4klrgmgmx5_vhaK_dxKW0US9-S2A13fnYDfDwZPKPVFpaQot1kAIcUxx3TNWnG3C3O_gEuSPEy7VTkjMknnUz3GR3YMmKjn2XoC_EqLceMqNtQjCSuJomE5UK7bbPdT-aQ70iNs4K0J8F254PkJqNc-WP5zLSgnjuJmOcTXOZAK8s1SzvGWmY4WLz6AP3GcGngFGAeaUVtV9Cx1MKqQxd3rj3eJQjkIe0ChfWvEcESpYbsQ",
          "refresh_token": "0.AXEAv4j5cvGGr0GRqy180BHbR3bjMWeuFK5Jl7xuumkUOR5xAAA.EkjYj4mbM4pZlGEvUDUBH1mLh2ZJ3JMRSa4wBhPRXHBJuI_pEhEwP1oVC3qGId86ExR48VhzWVI8TAM4V77qf1P6DeoEyrt_nJGF6_vg5jjkqhhUOb7gRjI8ciBPv9ilUlfqoWSuAfSQ6DltNCgoUKxCDEf0wrGquWJSjLyy2ky3KgQjjh5H.-tdkbmx4xqsYYJ_q58YQozmo4CI1279cXw8232tzgMNV43Z95tsggluGesJ7ZZKZxYWRx45t3_1KQM2dHcmzXvYUQtd4BTTBUVlxHJGZATzX3yczGGWjo07YAsNSnwkoOK3TRB_4fAUxPSu8QjWq0zpttyvircvU",
          "id_token": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6Im5PbzNaRHJPRFhFSzFqS1doWHNsSFJfS1hFZyJ9.eyJhdWQiOiI2NzMxZGU3Ni0xNGE2LTQ5YWUtOTdiYy02ZWJhNjkxNDM5MWUiLCJpc3MiOiJodHRwczovL2xvZ2luLm1pY3Jvc29mdG9ubGluZS5jb20vOTE4ODA0MGQtNmM2Ny00YzViLWIxMTItMzZhMzA0YjY2ZGFkL3YyLjAiLCJpYXQiOjE3MDAwMDAwMDAsIm5iZiI6MTcwMDAwMDAwMCwiZXhwIjoxNzAwMDAzNjAwLCJuYW1lIjoiTWVnYW4gQm93ZW4iLCJvaWQiOiIwMDAwMDAwMC0wMDAwLTAwMDAtNjZmMy0zMzMyZWNhN2VhODEiLCJwcmVmZXJyZWRfdXNlcm5hbWUiOiJNZWdhbkJAY29udG9zby5jb20iLCJzdWIiOiJBQUFBQUFBQUFBQUFBQUFBQUFBQUFJa3pxRlZyU2FTYUZIeTc4MmJidGFRIiwidGlkIjoiOTE4ODA0MGQtNmM2Ny00YzViLWIxMTItMzZhMzA0YjY2ZGFkIiwidmVyIjoiMi4wIn0.ka8bps4L6QwxQFBaQgxYKxXQJ2HbqXoFTC6FPnoA-iKXsv07cKUQUjMmhbAolcdHndBwxpTtqXkc9v7JaSWJjyKYkhZL7y_3pJl9evD_VhvVJUjXLdQIng257hG2U9Qea9JazW6ZLJH_7TrBjePjyncSY6IUwqvVJ0PS90VXNahOTGvp57P42apwG-8udKWttSRN7y9bdAYkq5CNpoq4LmvYX3bxgfUdxNt2lG2oPqNd1k2uV4gQ0URuZcOfQkdDZRWIQIuplitMERi1khLiFSuY7SxOpOTKGsEQwjwMGyTZd843-FB2jnIXI8pinzkZnmCR2ShogplqxbuQVFmysQ"
        }
        """#, secrets: [
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6Im5PbzNaRHJPRFhFSzFqS1doWHNsSFJfS1hFZyJ9.eyJhdWQiOiIwMDAwMDAwMy0wMDAwLTAwMDAtYzAwMC0wMDAwMDAwMDAwMDAiLCJpc3MiOiJodHRwczovL3N0cy53aW5kb3dzLm5ldC85MTg4MDQwZC02YzY3LTRjNWItYjExMi0zNmEzMDRiNjZkYWQvIiwiaWF0IjoxNzAwMDAwMDAwLCJuYmYiOjE3MDAwMDAwMDAsImV4cCI6MTcwMDAwMzg5OSwiYXBwX2Rpc3BsYXluYW1lIjoiQ29udG9zbyBNYWlsIFJlYWRlciIsImFwcGlkIjoiNjczMWRlNzYtMTRhNi00OWFlLTk3YmMtNmViYTY5MTQzOTFlIiwibmFtZSI6Ik1lZ2FuIEJvd2VuIiwib2lkIjoiNDhkMzE4ODctNWZhZC00ZDczLWE5ZjUtM2MzNTZlNjhhMDM4Iiwic2NwIjoiTWFpbC5SZWFkIFVzZXIuUmVhZCBvcGVuaWQgcHJvZmlsZSBlbWFpbCIsInN1YiI6ImwzX3JvSVNRVTIyMmJVTFM5eWkyazBYcHFwT2lNejVIM1pBQ28xR2VYQSIsInRpZCI6IjkxODgwNDBkLTZjNjctNGM1Yi1iMTEyLTM2YTMwNGI2NmRhZCIsInVwbiI6Ik1lZ2FuQkBjb250b3NvLmNvbSIsInZlciI6IjEuMCJ9.N_VyCY9V6EkOCUkOsuoO87ObkVWsewHvD40kYjHjKcBw8YLSoiM6IUfXMF1jlnoIs_hmECKvyKq0Cp6eumHS8WjSfhoTPjnLeyfsC-H4klrgmgmx5_vhaK_dxKW0US9-S2A13fnYDfDwZPKPVFpaQot1kAIcUxx3TNWnG3C3O_gEuSPEy7VTkjMknnUz3GR3YMmKjn2XoC_EqLceMqNtQjCSuJomE5UK7bbPdT-aQ70iNs4K0J8F254PkJqNc-WP5zLSgnjuJmOcTXOZAK8s1SzvGWmY4WLz6AP3GcGngFGAeaUVtV9Cx1MKqQxd3rj3eJQjkIe0ChfWvEcESpYbsQ",
            "0.AXEAv4j5cvGGr0GRqy180BHbR3bjMWeuFK5Jl7xuumkUOR5xAAA.EkjYj4mbM4pZlGEvUDUBH1mLh2ZJ3JMRSa4wBhPRXHBJuI_pEhEwP1oVC3qGId86ExR48VhzWVI8TAM4V77qf1P6DeoEyrt_nJGF6_vg5jjkqhhUOb7gRjI8ciBPv9ilUlfqoWSuAfSQ6DltNCgoUKxCDEf0wrGquWJSjLyy2ky3KgQjjh5H.-tdkbmx4xqsYYJ_q58YQozmo4CI1279cXw8232tzgMNV43Z95tsggluGesJ7ZZKZxYWRx45t3_1KQM2dHcmzXvYUQtd4BTTBUVlxHJGZATzX3yczGGWjo07YAsNSnwkoOK3TRB_4fAUxPSu8QjWq0zpttyvircvU",
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6Im5PbzNaRHJPRFhFSzFqS1doWHNsSFJfS1hFZyJ9.eyJhdWQiOiI2NzMxZGU3Ni0xNGE2LTQ5YWUtOTdiYy02ZWJhNjkxNDM5MWUiLCJpc3MiOiJodHRwczovL2xvZ2luLm1pY3Jvc29mdG9ubGluZS5jb20vOTE4ODA0MGQtNmM2Ny00YzViLWIxMTItMzZhMzA0YjY2ZGFkL3YyLjAiLCJpYXQiOjE3MDAwMDAwMDAsIm5iZiI6MTcwMDAwMDAwMCwiZXhwIjoxNzAwMDAzNjAwLCJuYW1lIjoiTWVnYW4gQm93ZW4iLCJvaWQiOiIwMDAwMDAwMC0wMDAwLTAwMDAtNjZmMy0zMzMyZWNhN2VhODEiLCJwcmVmZXJyZWRfdXNlcm5hbWUiOiJNZWdhbkJAY29udG9zby5jb20iLCJzdWIiOiJBQUFBQUFBQUFBQUFBQUFBQUFBQUFJa3pxRlZyU2FTYUZIeTc4MmJidGFRIiwidGlkIjoiOTE4ODA0MGQtNmM2Ny00YzViLWIxMTItMzZhMzA0YjY2ZGFkIiwidmVyIjoiMi4wIn0.ka8bps4L6QwxQFBaQgxYKxXQJ2HbqXoFTC6FPnoA-iKXsv07cKUQUjMmhbAolcdHndBwxpTtqXkc9v7JaSWJjyKYkhZL7y_3pJl9evD_VhvVJUjXLdQIng257hG2U9Qea9JazW6ZLJH_7TrBjePjyncSY6IUwqvVJ0PS90VXNahOTGvp57P42apwG-8udKWttSRN7y9bdAYkq5CNpoq4LmvYX3bxgfUdxNt2lG2oPqNd1k2uV4gQ0URuZcOfQkdDZRWIQIuplitMERi1khLiFSuY7SxOpOTKGsEQwjwMGyTZd843-FB2jnIXI8pinzkZnmCR2ShogplqxbuQVFmysQ",
        ]),

        // MARK: Pagination

        RedactionFixture("GitHub GraphQL connection with Relay pageInfo", source: "https://docs.github.com/en/graphql/guides/using-pagination-in-the-graphql-api", contentType: "application/json; charset=utf-8", body: #"""
        {
          "data": {
            "repository": {
              "issues": {
                "totalCount": 1287,
                "edges": [
                  {
                    "cursor": "Y3Vyc29yOnYyOpHOCxxNLg==",
                    "node": {
                      "number": 4321,
                      "title": "Crash when decoding an empty body",
                      "state": "OPEN",
                      "createdAt": "2024-05-02T09:14:27Z"
                    }
                  },
                  {
                    "cursor": "Y3Vyc29yOnYyOpHOCxxPkA==",
                    "node": {
                      "number": 4322,
                      "title": "Document the retry budget",
                      "state": "CLOSED",
                      "createdAt": "2024-05-02T11:40:03Z"
                    }
                  },
                  {
                    "cursor": "Y3Vyc29yOnYyOpHOCxxSpw==",
                    "node": {
                      "number": 4325,
                      "title": "Token refresh races with cancellation",
                      "state": "OPEN",
                      "createdAt": "2024-05-03T08:02:55Z"
                    }
                  }
                ],
                "pageInfo": {
                  "startCursor": "Y3Vyc29yOnYyOpHOCxxNLg==",
                  "endCursor": "Y3Vyc29yOnYyOpHOCxxSpw==",
                  "hasNextPage": true,
                  "hasPreviousPage": true
                }
              }
            }
          }
        }
        """#),

        RedactionFixture("JSON:API collection with cursor pagination links", source: "https://jsonapi.org/format/#fetching-pagination", contentType: "application/vnd.api+json", body: #"""
        {
          "data": [
            {
              "type": "articles",
              "id": "101",
              "attributes": {
                "title": "JSON:API paints my bikeshed!",
                "createdAt": "2024-03-01T10:00:00Z"
              },
              "relationships": {
                "author": {
                  "data": { "type": "people", "id": "9" }
                }
              },
              "links": { "self": "https://api.example.com/articles/101" }
            },
            {
              "type": "articles",
              "id": "102",
              "attributes": {
                "title": "Rails is Omakase",
                "createdAt": "2024-03-02T16:45:12Z"
              },
              "relationships": {
                "author": {
                  "data": { "type": "people", "id": "24" }
                }
              },
              "links": { "self": "https://api.example.com/articles/102" }
            }
          ],
          "links": {
            "self": "https://api.example.com/articles?page[size]=2",
            "first": "https://api.example.com/articles?page[size]=2",
            "next": "https://api.example.com/articles?page[size]=2&page[cursor]=eyJpZCI6IjEwMiJ9"
          },
          "meta": {
            "page": { "size": 2, "hasMore": true }
          }
        }
        """#),

        RedactionFixture("Notion list users response with next_cursor", source: "https://developers.notion.com/reference/get-users", contentType: "application/json; charset=utf-8", body: #"""
        {
          "object": "list",
          "results": [
            {
              "object": "user",
              "id": "d40e767c-d7af-4b18-a86d-55c61f1e39a4",
              "type": "person",
              "person": {
                "email": "avo@example.org"
              },
              "name": "Avocado Lovelace",
              "avatar_url": "https://secure.notion-static.com/e6a352a8-8381-44d0-a1dc-9ed80e62b53d.jpg"
            },
            {
              "object": "user",
              "id": "9a3b5ae0-c6e6-482d-b0e1-ed315ee6dc57",
              "type": "bot",
              "bot": {},
              "name": "Doug Engelbot",
              "avatar_url": "https://secure.notion-static.com/6720d746-3402-4171-8ebb-28d15144923c.jpg"
            }
          ],
          "next_cursor": "fe2cc560-036c-44cd-90e8-294d5a74cebc",
          "has_more": true,
          "type": "user",
          "user": {}
        }
        """#),

        RedactionFixture("Elasticsearch scroll search response", source: "https://www.elastic.co/guide/en/elasticsearch/reference/current/paginate-search-results.html#scroll-search-results", contentType: "application/json", body: #"""
        {
          "_scroll_id": "DXF1ZXJ5QW5kRmV0Y2gBAAAAAAAAAD4WYm9laVYtZndUQlNsdDcwakFMNjU1QQ==",
          "took": 12,
          "timed_out": false,
          "_shards": {
            "total": 1,
            "successful": 1,
            "skipped": 0,
            "failed": 0
          },
          "hits": {
            "total": {
              "value": 10000,
              "relation": "gte"
            },
            "max_score": 1.0,
            "hits": [
              {
                "_index": "my-index-000001",
                "_id": "kxWFcnMByiguvud1Z8vC",
                "_score": 1.0,
                "_source": {
                  "@timestamp": "2099-11-15T14:12:12",
                  "http": {
                    "request": { "method": "get" },
                    "response": { "bytes": 1070000, "status_code": 200 },
                    "version": "1.1"
                  },
                  "message": "GET /search HTTP/1.1 200 1070000",
                  "source": { "ip": "127.0.0.1" },
                  "user": { "id": "kimchy" }
                }
              }
            ]
          }
        }
        """#),

        // MARK: Forms

        RedactionFixture("HTML login form", source: "https://developer.mozilla.org/en-US/docs/Web/HTML/Element/input/password", contentType: "application/x-www-form-urlencoded", body: #"""
        username=jdoe&password=Tr0ub4dor%263&remember_me=on
        """#, secrets: ["Tr0ub4dor&3"]),

        RedactionFixture("Laravel registration form (password and password_confirmation)", source: "https://laravel.com/docs/validation#rule-confirmed", contentType: "application/x-www-form-urlencoded", body: #"""
        _token=KQ0UrPfsHcMEA6LtPUk6z1E4Hv8nW3cTzRr0yBbI&name=Jane+Doe&email=jane.doe%40example.com&password=correct-horse-battery-staple&password_confirmation=correct-horse-battery-staple
        """#, secrets: ["KQ0UrPfsHcMEA6LtPUk6z1E4Hv8nW3cTzRr0yBbI", "correct-horse-battery-staple"]),

        RedactionFixture("Search form", source: "https://docs.github.com/en/rest/search/search#search-repositories", contentType: "application/x-www-form-urlencoded", body: #"""
        q=redaction+engine+language%3Aswift&page=2&per_page=50&sort=updated&order=desc
        """#),

        RedactionFixture("Form with a CSRF token hidden field", source: "https://cheatsheetseries.owasp.org/cheatsheets/Cross-Site_Request_Forgery_Prevention_Cheat_Sheet.html#synchronizer-token-pattern", contentType: "application/x-www-form-urlencoded", body: #"""
        token=OWY4NmQwODE4ODRjN2Q2NTlhMmZlYWEwYzU1YWQwMTVhM2JmNGYxYjJiMGI4MjJjZDE1ZDZjMTViMGYwMGEwOA%3D%3D&account=DE89370400440532013000&amount=250.00&memo=Rent+June
        """#, secrets: ["OWY4NmQwODE4ODRjN2Q2NTlhMmZlYWEwYzU1YWQwMTVhM2JmNGYxYjJiMGI4MjJjZDE1ZDZjMTViMGYwMGEwOA=="]),

        // MARK: Multipart (CRLF line ends)

        RedactionFixture("Multipart file upload with title and description", source: "https://www.rfc-editor.org/rfc/rfc7578#section-4", contentType: "multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW", body: """
        ------WebKitFormBoundary7MA4YWxkTrZu0gW\r\n\
        Content-Disposition: form-data; name="title"\r\n\
        \r\n\
        Release notes 2.4\r\n\
        ------WebKitFormBoundary7MA4YWxkTrZu0gW\r\n\
        Content-Disposition: form-data; name="description"\r\n\
        \r\n\
        What changed in the retry policy and the token refresh.\r\n\
        ------WebKitFormBoundary7MA4YWxkTrZu0gW\r\n\
        Content-Disposition: form-data; name="file"; filename="notes.txt"\r\n\
        Content-Type: text/plain\r\n\
        \r\n\
        - Retries back off exponentially, capped at 30 s.\r\n\
        - Refresh tokens rotate on every use.\r\n\
        ------WebKitFormBoundary7MA4YWxkTrZu0gW--\r\n
        """),

        RedactionFixture("Multipart upload with an api_key field", source: "https://www.rfc-editor.org/rfc/rfc7578#section-4.2", contentType: "multipart/form-data; boundary=------------------------d74496d66958873e", body: """
        --------------------------d74496d66958873e\r\n\
        Content-Disposition: form-data; name="api_key"\r\n\
        \r\n\
        a3f9c2e7b14d4e0f9b8a6c5d2e1f0a9b\r\n\
        --------------------------d74496d66958873e\r\n\
        Content-Disposition: form-data; name="file"; filename="report.csv"\r\n\
        Content-Type: text/csv\r\n\
        \r\n\
        date,requests,errors\r\n\
        2024-06-01,18234,12\r\n\
        2024-06-02,17911,9\r\n\
        --------------------------d74496d66958873e--\r\n
        """, secrets: ["a3f9c2e7b14d4e0f9b8a6c5d2e1f0a9b"]),
    ]
}
