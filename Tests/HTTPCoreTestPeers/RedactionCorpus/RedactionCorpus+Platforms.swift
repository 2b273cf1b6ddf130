extension RedactionFixture {
    /// Platform APIs: GitHub (REST, GraphQL, webhooks), Stripe, Slack, Twilio, Kubernetes and
    /// Amazon S3, request and response bodies as their public documentation shows them.
    ///
    /// Most of these bodies carry no secret at all, and are here for precision: node ids,
    /// object ids (`cus_…`, `ch_…`, `tok_…`, `pi_…`), SHAs, ETags, pagination cursors and
    /// continue tokens, Twilio SIDs and plain URLs must all come out untouched. The secrets
    /// are the ones a leak would hurt: a GitHub installation token, a Stripe client secret and
    /// a live secret key, Slack bot and user tokens, Twilio auth tokens.
    public static let platformCorpus: [RedactionFixture] = [
        // MARK: GitHub REST

        RedactionFixture("GitHub REST: get a repository", source: "https://docs.github.com/en/rest/repos/repos#get-a-repository", contentType: "application/json; charset=utf-8", body: #"""
        {
          "id": 1296269,
          "node_id": "MDEwOlJlcG9zaXRvcnkxMjk2MjY5",
          "name": "Hello-World",
          "full_name": "octocat/Hello-World",
          "private": false,
          "owner": {
            "login": "octocat",
            "id": 583231,
            "node_id": "MDQ6VXNlcjU4MzIzMQ==",
            "avatar_url": "https://avatars.githubusercontent.com/u/583231?v=4",
            "gravatar_id": "",
            "url": "https://api.github.com/users/octocat",
            "html_url": "https://github.com/octocat",
            "type": "User",
            "site_admin": false
          },
          "html_url": "https://github.com/octocat/Hello-World",
          "description": "My first repository on GitHub!",
          "fork": false,
          "url": "https://api.github.com/repos/octocat/Hello-World",
          "git_url": "git://github.com/octocat/Hello-World.git",
          "ssh_url": "git@github.com:octocat/Hello-World.git",
          "clone_url": "https://github.com/octocat/Hello-World.git",
          "homepage": "",
          "size": 1,
          "stargazers_count": 3192,
          "watchers_count": 3192,
          "language": null,
          "has_issues": true,
          "has_projects": true,
          "has_wiki": true,
          "has_pages": false,
          "archived": false,
          "disabled": false,
          "open_issues_count": 1824,
          "license": null,
          "allow_forking": true,
          "is_template": false,
          "topics": [],
          "visibility": "public",
          "forks": 2984,
          "open_issues": 1824,
          "watchers": 3192,
          "default_branch": "master",
          "created_at": "2011-01-26T19:01:12Z",
          "updated_at": "2024-05-02T11:38:51Z",
          "pushed_at": "2024-04-29T09:14:55Z",
          "network_count": 2984,
          "subscribers_count": 1724
        }
        """#, secrets: []),

        RedactionFixture("GitHub REST: list repository issues", source: "https://docs.github.com/en/rest/issues/issues#list-repository-issues", contentType: "application/json; charset=utf-8", body: #"""
        [
          {
            "url": "https://api.github.com/repos/octocat/Hello-World/issues/1347",
            "repository_url": "https://api.github.com/repos/octocat/Hello-World",
            "labels_url": "https://api.github.com/repos/octocat/Hello-World/issues/1347/labels{/name}",
            "comments_url": "https://api.github.com/repos/octocat/Hello-World/issues/1347/comments",
            "events_url": "https://api.github.com/repos/octocat/Hello-World/issues/1347/events",
            "html_url": "https://github.com/octocat/Hello-World/issues/1347",
            "id": 1,
            "node_id": "MDU6SXNzdWUx",
            "number": 1347,
            "title": "Found a bug",
            "user": {
              "login": "octocat",
              "id": 1,
              "node_id": "MDQ6VXNlcjE=",
              "avatar_url": "https://github.com/images/error/octocat_happy.gif",
              "gravatar_id": "",
              "url": "https://api.github.com/users/octocat",
              "html_url": "https://github.com/octocat",
              "type": "User",
              "site_admin": false
            },
            "labels": [
              {
                "id": 208045946,
                "node_id": "MDU6TGFiZWwyMDgwNDU5NDY=",
                "url": "https://api.github.com/repos/octocat/Hello-World/labels/bug",
                "name": "bug",
                "description": "Something isn't working",
                "color": "f29513",
                "default": true
              }
            ],
            "state": "open",
            "locked": false,
            "assignee": null,
            "assignees": [],
            "milestone": null,
            "comments": 2,
            "created_at": "2011-04-22T13:33:48Z",
            "updated_at": "2011-04-22T13:33:48Z",
            "closed_at": null,
            "author_association": "COLLABORATOR",
            "active_lock_reason": null,
            "body": "I'm having a problem with this.",
            "state_reason": null
          },
          {
            "url": "https://api.github.com/repos/octocat/Hello-World/issues/1346",
            "repository_url": "https://api.github.com/repos/octocat/Hello-World",
            "labels_url": "https://api.github.com/repos/octocat/Hello-World/issues/1346/labels{/name}",
            "comments_url": "https://api.github.com/repos/octocat/Hello-World/issues/1346/comments",
            "events_url": "https://api.github.com/repos/octocat/Hello-World/issues/1346/events",
            "html_url": "https://github.com/octocat/Hello-World/issues/1346",
            "id": 2213654120,
            "node_id": "I_kwDOABPHjc6D8jBo",
            "number": 1346,
            "title": "Docs: clarify the pagination example",
            "user": {
              "login": "monalisa",
              "id": 2,
              "node_id": "MDQ6VXNlcjI=",
              "avatar_url": "https://avatars.githubusercontent.com/u/2?v=4",
              "gravatar_id": "",
              "url": "https://api.github.com/users/monalisa",
              "html_url": "https://github.com/monalisa",
              "type": "User",
              "site_admin": false
            },
            "labels": [
              {
                "id": 208045947,
                "node_id": "MDU6TGFiZWwyMDgwNDU5NDc=",
                "url": "https://api.github.com/repos/octocat/Hello-World/labels/documentation",
                "name": "documentation",
                "description": "Improvements or additions to documentation",
                "color": "0075ca",
                "default": true
              },
              {
                "id": 208045950,
                "node_id": "MDU6TGFiZWwyMDgwNDU5NTA=",
                "url": "https://api.github.com/repos/octocat/Hello-World/labels/good%20first%20issue",
                "name": "good first issue",
                "description": "Good for newcomers",
                "color": "7057ff",
                "default": true
              }
            ],
            "state": "open",
            "locked": false,
            "assignee": null,
            "assignees": [],
            "milestone": null,
            "comments": 0,
            "created_at": "2024-03-28T10:02:17Z",
            "updated_at": "2024-03-29T08:45:03Z",
            "closed_at": null,
            "author_association": "CONTRIBUTOR",
            "active_lock_reason": null,
            "body": null,
            "state_reason": null
          }
        ]
        """#, secrets: []),

        RedactionFixture("GitHub REST: get the authenticated user", source: "https://docs.github.com/en/rest/users/users#get-the-authenticated-user", contentType: "application/json; charset=utf-8", body: #"""
        {
          "login": "octocat",
          "id": 1,
          "node_id": "MDQ6VXNlcjE=",
          "avatar_url": "https://github.com/images/error/octocat_happy.gif",
          "gravatar_id": "",
          "url": "https://api.github.com/users/octocat",
          "html_url": "https://github.com/octocat",
          "followers_url": "https://api.github.com/users/octocat/followers",
          "following_url": "https://api.github.com/users/octocat/following{/other_user}",
          "repos_url": "https://api.github.com/users/octocat/repos",
          "type": "User",
          "site_admin": false,
          "name": "monalisa octocat",
          "company": "GitHub",
          "blog": "https://github.com/blog",
          "location": "San Francisco",
          "email": "octocat@github.com",
          "hireable": false,
          "bio": "There once was...",
          "twitter_username": "monatheoctocat",
          "public_repos": 2,
          "public_gists": 1,
          "followers": 20,
          "following": 0,
          "created_at": "2008-01-14T04:33:35Z",
          "updated_at": "2008-01-14T04:33:35Z",
          "private_gists": 81,
          "total_private_repos": 100,
          "owned_private_repos": 100,
          "disk_usage": 10000,
          "collaborators": 8,
          "two_factor_authentication": true,
          "plan": {
            "name": "Medium",
            "space": 400,
            "private_repos": 20,
            "collaborators": 0
          }
        }
        """#, secrets: []),

        RedactionFixture("GitHub REST: create an installation access token for an app", source: "https://docs.github.com/en/rest/apps/apps#create-an-installation-access-token-for-an-app", contentType: "application/json; charset=utf-8", body: #"""
        {
          "token": "ghs_WHWCUzGBZTsJw2eFWlOU6sUpPAdTcJJNO2zp",
          "expires_at": "2024-05-06T15:42:10Z",
          "permissions": {
            "issues": "write",
            "contents": "read",
            "metadata": "read"
          },
          "repository_selection": "selected",
          "repositories": [
            {
              "id": 1296269,
              "node_id": "MDEwOlJlcG9zaXRvcnkxMjk2MjY5",
              "name": "Hello-World",
              "full_name": "octocat/Hello-World",
              "private": false,
              "html_url": "https://github.com/octocat/Hello-World",
              "url": "https://api.github.com/repos/octocat/Hello-World",
              "default_branch": "master"
            }
          ]
        }
        """#, secrets: ["ghs_WHWCUzGBZTsJw2eFWlOU6sUpPAdTcJJNO2zp"]),

        RedactionFixture("GitHub REST: get rate limit status", source: "https://docs.github.com/en/rest/rate-limit/rate-limit#get-rate-limit-status-for-the-authenticated-user", contentType: "application/json; charset=utf-8", body: #"""
        {
          "resources": {
            "core": {
              "limit": 5000,
              "used": 1,
              "remaining": 4999,
              "reset": 1714997930
            },
            "search": {
              "limit": 30,
              "used": 12,
              "remaining": 18,
              "reset": 1714994390
            },
            "graphql": {
              "limit": 5000,
              "used": 7,
              "remaining": 4993,
              "reset": 1714997930
            },
            "integration_manifest": {
              "limit": 5000,
              "used": 1,
              "remaining": 4999,
              "reset": 1714997930
            },
            "code_search": {
              "limit": 10,
              "used": 0,
              "remaining": 10,
              "reset": 1714994390
            }
          },
          "rate": {
            "limit": 5000,
            "used": 1,
            "remaining": 4999,
            "reset": 1714997930
          }
        }
        """#, secrets: []),

        RedactionFixture("GitHub webhook: push event (trimmed)", source: "https://docs.github.com/en/webhooks/webhook-events-and-payloads#push", contentType: "application/json", body: #"""
        {
          "ref": "refs/heads/main",
          "before": "fc9398900499258e74af42f2cf9fd331b36a7623",
          "after": "f1d65b28f25d45d80daa045c8cc0d8564666501a",
          "repository": {
            "id": 1296269,
            "node_id": "MDEwOlJlcG9zaXRvcnkxMjk2MjY5",
            "name": "Hello-World",
            "full_name": "octocat/Hello-World",
            "private": false,
            "owner": {
              "name": "octocat",
              "email": "octocat@github.com",
              "login": "octocat",
              "id": 583231,
              "node_id": "MDQ6VXNlcjU4MzIzMQ==",
              "type": "User",
              "site_admin": false
            },
            "html_url": "https://github.com/octocat/Hello-World",
            "url": "https://github.com/octocat/Hello-World",
            "created_at": 1296068472,
            "updated_at": "2024-05-02T11:38:51Z",
            "pushed_at": 1714999012,
            "default_branch": "main",
            "master_branch": "main"
          },
          "pusher": {
            "name": "octocat",
            "email": "octocat@github.com"
          },
          "sender": {
            "login": "octocat",
            "id": 583231,
            "node_id": "MDQ6VXNlcjU4MzIzMQ==",
            "avatar_url": "https://avatars.githubusercontent.com/u/583231?v=4",
            "type": "User",
            "site_admin": false
          },
          "created": false,
          "deleted": false,
          "forced": false,
          "base_ref": null,
          "compare": "https://github.com/octocat/Hello-World/compare/fc9398900499...f1d65b28f25d",
          "commits": [
            {
              "id": "f1d65b28f25d45d80daa045c8cc0d8564666501a",
              "tree_id": "5d7259b1057b28e06e37dd4c6d58005f06d94d4f",
              "distinct": true,
              "message": "Fix typo in README",
              "timestamp": "2024-05-06T14:36:52+02:00",
              "url": "https://github.com/octocat/Hello-World/commit/f1d65b28f25d45d80daa045c8cc0d8564666501a",
              "author": {
                "name": "The Octocat",
                "email": "octocat@github.com",
                "username": "octocat"
              },
              "committer": {
                "name": "GitHub",
                "email": "noreply@github.com",
                "username": "web-flow"
              },
              "added": [],
              "removed": [],
              "modified": [
                "README"
              ]
            }
          ],
          "head_commit": {
            "id": "f1d65b28f25d45d80daa045c8cc0d8564666501a",
            "tree_id": "5d7259b1057b28e06e37dd4c6d58005f06d94d4f",
            "distinct": true,
            "message": "Fix typo in README",
            "timestamp": "2024-05-06T14:36:52+02:00",
            "url": "https://github.com/octocat/Hello-World/commit/f1d65b28f25d45d80daa045c8cc0d8564666501a",
            "author": {
              "name": "The Octocat",
              "email": "octocat@github.com",
              "username": "octocat"
            },
            "committer": {
              "name": "GitHub",
              "email": "noreply@github.com",
              "username": "web-flow"
            },
            "added": [],
            "removed": [],
            "modified": [
              "README"
            ]
          }
        }
        """#, secrets: []),

        // MARK: GitHub GraphQL

        RedactionFixture("GitHub GraphQL: paginated issues query request", source: "https://docs.github.com/en/graphql/guides/using-pagination-in-the-graphql-api", contentType: "application/json", body: #"""
        {"query":"query($owner:String!,$name:String!,$cursor:String){repository(owner:$owner,name:$name){issues(first:10,after:$cursor){pageInfo{endCursor hasNextPage} nodes{title}}}}","variables":{"owner":"octocat","name":"hello-world","cursor":null}}
        """#, secrets: []),

        RedactionFixture("GitHub GraphQL: paginated issues query response", source: "https://docs.github.com/en/graphql/guides/using-pagination-in-the-graphql-api", contentType: "application/json; charset=utf-8", body: #"""
        {
          "data": {
            "repository": {
              "issues": {
                "pageInfo": {
                  "endCursor": "Y3Vyc29yOnYyOpHOAAABhQ==",
                  "hasNextPage": true
                },
                "nodes": [
                  {
                    "title": "Found a bug"
                  },
                  {
                    "title": "Docs: clarify the pagination example"
                  },
                  {
                    "title": "Add a CONTRIBUTING guide"
                  }
                ]
              }
            }
          }
        }
        """#, secrets: []),

        // MARK: Stripe

        RedactionFixture("Stripe: the PaymentIntent object", source: "https://docs.stripe.com/api/payment_intents/object", contentType: "application/json", body: #"""
        {
          "id": "pi_3PqX7tQv4pR2eZkT1b9yHc2M",
          "object": "payment_intent",
          "amount": 2000,
          "amount_capturable": 0,
          "amount_details": {
            "tip": {}
          },
          "amount_received": 0,
          "application": null,
          "application_fee_amount": null,
          "automatic_payment_methods": {
            "enabled": true
          },
          "canceled_at": null,
          "cancellation_reason": null,
          "capture_method": "automatic",
          "client_secret": "pi_3PqX7tQv4pR2eZkT1b9yHc2M_secret_NGQGg8LXSBfjwDlbA3Fu8rgMx",
          "confirmation_method": "automatic",
          "created": 1714996521,
          "currency": "usd",
          "customer": null,
          "description": null,
          "last_payment_error": null,
          "latest_charge": null,
          "livemode": false,
          "metadata": {
            "order_id": "6735"
          },
          "next_action": null,
          "on_behalf_of": null,
          "payment_method": null,
          "payment_method_options": {
            "card": {
              "installments": null,
              "mandate_options": null,
              "network": null,
              "request_three_d_secure": "automatic"
            }
          },
          "payment_method_types": [
            "card"
          ],
          "processing": null,
          "receipt_email": null,
          "review": null,
          "setup_future_usage": null,
          "shipping": null,
          "source": null,
          "statement_descriptor": null,
          "statement_descriptor_suffix": null,
          "status": "requires_payment_method",
          "transfer_data": null,
          "transfer_group": null
        }
        """#, secrets: ["pi_3PqX7tQv4pR2eZkT1b9yHc2M_secret_NGQGg8LXSBfjwDlbA3Fu8rgMx"]),

        RedactionFixture("Stripe: create a PaymentIntent (form request)", source: "https://docs.stripe.com/api/payment_intents/create", contentType: "application/x-www-form-urlencoded", body: #"""
        amount=2000&currency=usd&payment_method_types[]=card&metadata[order_id]=6735
        """#, secrets: []),

        RedactionFixture("Stripe: the Customer object", source: "https://docs.stripe.com/api/customers/object", contentType: "application/json", body: #"""
        {
          "id": "cus_Q8kT2hVnR4bL0x",
          "object": "customer",
          "address": null,
          "balance": 0,
          "created": 1714996102,
          "currency": null,
          "default_source": null,
          "delinquent": false,
          "description": null,
          "discount": null,
          "email": "jennyrosen@example.com",
          "invoice_prefix": "0759376C",
          "invoice_settings": {
            "custom_fields": null,
            "default_payment_method": null,
            "footer": null,
            "rendering_options": null
          },
          "livemode": false,
          "metadata": {},
          "name": "Jenny Rosen",
          "next_invoice_sequence": 1,
          "phone": null,
          "preferred_locales": [],
          "shipping": null,
          "tax_exempt": "none",
          "test_clock": null
        }
        """#, secrets: []),

        RedactionFixture("Stripe: create a Customer, live secret key pasted into description (form request)", source: "https://docs.stripe.com/api/customers/create", contentType: "application/x-www-form-urlencoded", body: #"""
        name=Jenny+Rosen&email=jennyrosen%40example.com&description=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&metadata[crm_id]=A-10442
        """#, secrets: ["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"]),

        RedactionFixture("Stripe: list all charges", source: "https://docs.stripe.com/api/charges/list", contentType: "application/json", body: #"""
        {
          "object": "list",
          "url": "/v1/charges",
          "has_more": true,
          "data": [
            {
              "id": "ch_3PqX7tQv4pR2eZkT0Gz5wNfA",
              "object": "charge",
              "amount": 2000,
              "amount_captured": 2000,
              "amount_refunded": 0,
              "application": null,
              "application_fee": null,
              "application_fee_amount": null,
              "balance_transaction": "txn_3PqX7tQv4pR2eZkT0vLcE8sR",
              "billing_details": {
                "address": {
                  "city": null,
                  "country": null,
                  "line1": null,
                  "line2": null,
                  "postal_code": "94103",
                  "state": null
                },
                "email": null,
                "name": "Jenny Rosen",
                "phone": null
              },
              "calculated_statement_descriptor": "EXAMPLE.COM",
              "captured": true,
              "created": 1714996790,
              "currency": "usd",
              "customer": "cus_Q8kT2hVnR4bL0x",
              "description": null,
              "disputed": false,
              "failure_code": null,
              "failure_message": null,
              "fraud_details": {},
              "livemode": false,
              "metadata": {},
              "outcome": {
                "network_status": "approved_by_network",
                "reason": null,
                "risk_level": "normal",
                "risk_score": 32,
                "seller_message": "Payment complete.",
                "type": "authorized"
              },
              "paid": true,
              "payment_intent": "pi_3PqX7tQv4pR2eZkT1b9yHc2M",
              "payment_method": "pm_1PqX7sQv4pR2eZkTm3DkW9jB",
              "payment_method_details": {
                "card": {
                  "brand": "visa",
                  "checks": {
                    "address_line1_check": null,
                    "address_postal_code_check": "pass",
                    "cvc_check": "pass"
                  },
                  "country": "US",
                  "exp_month": 8,
                  "exp_year": 2027,
                  "fingerprint": "Kxlpt6tCBEcohk",
                  "funding": "credit",
                  "last4": "4242",
                  "network": "visa",
                  "three_d_secure": null,
                  "wallet": null
                },
                "type": "card"
              },
              "receipt_email": null,
              "receipt_number": null,
              "receipt_url": "https://pay.stripe.com/receipts/payment/CAcaFwoVYWNjdF8xUHFYN3NRdjRwUjJlWmtUKNq8oLIGMgYJqUqR5hk6LBYl0y3q9vV8",
              "refunded": false,
              "review": null,
              "shipping": null,
              "source_transfer": null,
              "statement_descriptor": null,
              "statement_descriptor_suffix": null,
              "status": "succeeded",
              "transfer_data": null,
              "transfer_group": null
            }
          ]
        }
        """#, secrets: []),

        RedactionFixture("Stripe: the Token object (card)", source: "https://docs.stripe.com/api/tokens/object", contentType: "application/json", body: #"""
        {
          "id": "tok_1PqX6rQv4pR2eZkTxW2nA7cJ",
          "object": "token",
          "card": {
            "id": "card_1PqX6rQv4pR2eZkTb0HcY4pE",
            "object": "card",
            "address_city": null,
            "address_country": null,
            "address_line1": null,
            "address_line1_check": null,
            "address_line2": null,
            "address_state": null,
            "address_zip": null,
            "address_zip_check": null,
            "brand": "Visa",
            "country": "US",
            "cvc_check": "unchecked",
            "dynamic_last4": null,
            "exp_month": 8,
            "exp_year": 2027,
            "fingerprint": "Kxlpt6tCBEcohk",
            "funding": "credit",
            "last4": "4242",
            "metadata": {},
            "name": null,
            "tokenization_method": null,
            "wallet": null
          },
          "client_ip": "203.0.113.42",
          "created": 1714996433,
          "livemode": false,
          "type": "card",
          "used": false
        }
        """#, secrets: []),

        RedactionFixture("Stripe: the Event object (customer.updated webhook)", source: "https://docs.stripe.com/api/events/object", contentType: "application/json; charset=utf-8", body: #"""
        {
          "id": "evt_1PqX9aQv4pR2eZkTfJ8s0LmD",
          "object": "event",
          "api_version": "2024-04-10",
          "created": 1714997012,
          "data": {
            "object": {
              "id": "cus_Q8kT2hVnR4bL0x",
              "object": "customer",
              "address": null,
              "balance": 0,
              "created": 1714996102,
              "currency": "usd",
              "default_source": null,
              "delinquent": false,
              "description": null,
              "email": "jenny.rosen@example.com",
              "invoice_prefix": "0759376C",
              "livemode": false,
              "metadata": {},
              "name": "Jenny Rosen",
              "phone": null,
              "tax_exempt": "none"
            },
            "previous_attributes": {
              "email": "jennyrosen@example.com"
            }
          },
          "livemode": false,
          "pending_webhooks": 1,
          "request": {
            "id": "req_fnxuqMiEWkpM0k",
            "idempotency_key": "8e0c1b2a-5f3d-4c7e-9a6b-2d4f8e1c3a5b"
          },
          "type": "customer.updated"
        }
        """#, secrets: []),

        RedactionFixture("Stripe: the Checkout Session object", source: "https://docs.stripe.com/api/checkout/sessions/object", contentType: "application/json", body: #"""
        {
          "id": "cs_test_a1Kxlpt6tCBEcohkPFZTSKQ9zM8Ix7cACQ4F7HaUD2C0fnxuqMiEWkpM0k",
          "object": "checkout.session",
          "after_expiration": null,
          "allow_promotion_codes": null,
          "amount_subtotal": 2000,
          "amount_total": 2000,
          "automatic_tax": {
            "enabled": false,
            "liability": null,
            "status": null
          },
          "billing_address_collection": null,
          "cancel_url": null,
          "client_reference_id": null,
          "client_secret": null,
          "consent": null,
          "consent_collection": null,
          "created": 1714996850,
          "currency": "usd",
          "custom_fields": [],
          "custom_text": {
            "after_submit": null,
            "shipping_address": null,
            "submit": null,
            "terms_of_service_acceptance": null
          },
          "customer": null,
          "customer_creation": "if_required",
          "customer_details": null,
          "customer_email": null,
          "expires_at": 1715083250,
          "invoice": null,
          "livemode": false,
          "locale": null,
          "metadata": {},
          "mode": "payment",
          "payment_intent": null,
          "payment_link": null,
          "payment_method_collection": "if_required",
          "payment_method_options": {},
          "payment_method_types": [
            "card"
          ],
          "payment_status": "unpaid",
          "phone_number_collection": {
            "enabled": false
          },
          "recovered_from": null,
          "setup_intent": null,
          "shipping_address_collection": null,
          "shipping_cost": null,
          "shipping_details": null,
          "shipping_options": [],
          "status": "open",
          "submit_type": null,
          "subscription": null,
          "success_url": "https://example.com/success",
          "total_details": {
            "amount_discount": 0,
            "amount_shipping": 0,
            "amount_tax": 0
          },
          "ui_mode": "hosted",
          "url": "https://checkout.stripe.com/c/pay/cs_test_a1Kxlpt6tCBEcohkPFZTSKQ9zM8Ix7cACQ4F7HaUD2C0fnxuqMiEWkpM0k#fidkdWxOYHwnPyd1blpxYHZxWjA0VEhMSndJUWd2PUF8aX1OdnRsTn1%2FXHdQN3xDaX0nKSdjd2poVmB3c2B3Jz9xd3BgKSdpZHxqcHFRfHVgJz8naHBpcWxabHFgaCcpJ2BrZGdpYFVpZGZgbWppYWB3dic%2FcXdwYHgl"
        }
        """#, secrets: []),

        RedactionFixture("Stripe: error object (card_declined)", source: "https://docs.stripe.com/api/errors", contentType: "application/json", body: #"""
        {
          "error": {
            "charge": "ch_3PqXAbQv4pR2eZkT1nY6uQ0e",
            "code": "card_declined",
            "decline_code": "generic_decline",
            "doc_url": "https://stripe.com/docs/error-codes/card-declined",
            "message": "Your card was declined.",
            "request_log_url": "https://dashboard.stripe.com/test/logs/req_PFZTSKQ9zM8Ix7?t=1714997101",
            "type": "card_error"
          }
        }
        """#, secrets: []),

        // MARK: Slack

        RedactionFixture("Slack: oauth.v2.access response", source: "https://api.slack.com/methods/oauth.v2.access", contentType: "application/json; charset=utf-8", body: #"""
        {
          "ok": true,
          "access_token": "xoxb-17653672481-19874698323-fISsiecR0mPvQ130mEOtrNbj",
          "token_type": "bot",
          "scope": "commands,incoming-webhook,chat:write",
          "bot_user_id": "U0KRQLJ9H",
          "app_id": "A0KRD7HC3",
          "team": {
            "name": "Slack Softball Team",
            "id": "T9TK3CUKW"
          },
          "enterprise": {
            "name": "slack-sports",
            "id": "E12345678"
          },
          "authed_user": {
            "id": "U1234ABCD",
            "scope": "chat:write",
            "access_token": "xoxp-17653672481-19874698325-5098172034816-dd13b6c3dc7201ab2cae1a002fdfe120",
            "token_type": "user"
          },
          "is_enterprise_install": false
        }
        """#, secrets: [
            "xoxb-17653672481-19874698323-fISsiecR0mPvQ130mEOtrNbj",
            "xoxp-17653672481-19874698325-5098172034816-dd13b6c3dc7201ab2cae1a002fdfe120",
        ]),

        RedactionFixture("Slack: chat.postMessage request", source: "https://api.slack.com/methods/chat.postMessage", contentType: "application/json; charset=utf-8", body: #"""
        {
          "channel": "C123ABC456",
          "text": "Deploy finished: web@f1d65b2 is live :tada:",
          "blocks": [
            {
              "type": "section",
              "text": {
                "type": "mrkdwn",
                "text": "*Deploy finished*\n`web@f1d65b2` is live in <https://status.example.com|production>."
              }
            }
          ],
          "unfurl_links": false
        }
        """#, secrets: []),

        RedactionFixture("Slack: chat.postMessage response", source: "https://api.slack.com/methods/chat.postMessage", contentType: "application/json; charset=utf-8", body: #"""
        {
          "ok": true,
          "channel": "C123ABC456",
          "ts": "1503435956.000247",
          "message": {
            "text": "Deploy finished: web@f1d65b2 is live :tada:",
            "username": "ecto1",
            "bot_id": "B123ABC456",
            "attachments": [
              {
                "text": "This is an attachment",
                "id": 1,
                "fallback": "This is an attachment's fallback"
              }
            ],
            "type": "message",
            "subtype": "bot_message",
            "ts": "1503435956.000247"
          }
        }
        """#, secrets: []),

        RedactionFixture("Slack: conversations.history response", source: "https://api.slack.com/methods/conversations.history", contentType: "application/json; charset=utf-8", body: #"""
        {
          "ok": true,
          "messages": [
            {
              "type": "message",
              "user": "U123ABC456",
              "text": "I find you punny and would like to smell your nose letter",
              "ts": "1512085950.000216"
            },
            {
              "type": "message",
              "user": "U222BBB222",
              "text": "What, you want to smell my shoes better?",
              "ts": "1512104434.000490"
            }
          ],
          "has_more": true,
          "pin_count": 0,
          "response_metadata": {
            "next_cursor": "bmV4dF90czoxNTEyMDg1ODYxMDAwNTQz"
          }
        }
        """#, secrets: []),

        // MARK: Twilio

        RedactionFixture("Twilio: create a Message (form request)", source: "https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource", contentType: "application/x-www-form-urlencoded", body: #"""
        To=%2B15558675310&From=%2B15017122661&Body=Hi+there%2C+your+order+%236735+has+shipped%21
        """#, secrets: []),

        RedactionFixture("Twilio: the Message resource (create response)", source: "https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource", contentType: "application/json; charset=utf-8", body: #"""
        {
          "account_sid": "AC5ef8732a3c49700934481addd5ce1659",
          "api_version": "2010-04-01",
          "body": "Hi there, your order #6735 has shipped!",
          "date_created": "Mon, 06 May 2024 12:41:27 +0000",
          "date_sent": null,
          "date_updated": "Mon, 06 May 2024 12:41:27 +0000",
          "direction": "outbound-api",
          "error_code": null,
          "error_message": null,
          "from": "+15017122661",
          "messaging_service_sid": null,
          "num_media": "0",
          "num_segments": "1",
          "price": null,
          "price_unit": "USD",
          "sid": "SM1f0e8ae6ade43cb3c0ce4525424e404f",
          "status": "queued",
          "subresource_uris": {
            "media": "/2010-04-01/Accounts/AC5ef8732a3c49700934481addd5ce1659/Messages/SM1f0e8ae6ade43cb3c0ce4525424e404f/Media.json"
          },
          "to": "+15558675310",
          "uri": "/2010-04-01/Accounts/AC5ef8732a3c49700934481addd5ce1659/Messages/SM1f0e8ae6ade43cb3c0ce4525424e404f.json"
        }
        """#, secrets: []),

        RedactionFixture("Twilio: create a Message, auth token pasted into an AuthToken form field", source: "https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource", contentType: "application/x-www-form-urlencoded", body: #"""
        AccountSid=AC5ef8732a3c49700934481addd5ce1659&AuthToken=ae0d6cf046d27ce028ad439048e964dd&To=%2B15558675310&From=%2B15017122661&Body=Your+code+expires+in+10+minutes
        """#, secrets: ["ae0d6cf046d27ce028ad439048e964dd"]),

        RedactionFixture("Twilio Verify: VerificationCheck response", source: "https://www.twilio.com/docs/verify/api/verification-check", contentType: "application/json; charset=utf-8", body: #"""
        {
          "sid": "VE4a7c1d3b9e2f6a8c0d5b7e9f1a3c5d7e",
          "service_sid": "VA8e2b6d4f0a1c3e5b7d9f2a4c6e8b0d1f",
          "account_sid": "AC5ef8732a3c49700934481addd5ce1659",
          "to": "+15017122661",
          "channel": "sms",
          "status": "approved",
          "valid": true,
          "amount": null,
          "payee": null,
          "sna_attempts_error_codes": [],
          "date_created": "2024-05-06T12:44:03Z",
          "date_updated": "2024-05-06T12:45:11Z"
        }
        """#, secrets: []),

        RedactionFixture("Twilio: create a subaccount (Account resource response)", source: "https://www.twilio.com/docs/iam/api/account#create-an-account-resource", contentType: "application/json; charset=utf-8", body: #"""
        {
          "auth_token": "e5306cc42b52d4f7c5cec96b16e9c7d1",
          "date_created": "Mon, 06 May 2024 12:50:02 +0000",
          "date_updated": "Mon, 06 May 2024 12:50:02 +0000",
          "friendly_name": "Customer 6735 messaging",
          "owner_account_sid": "AC5ef8732a3c49700934481addd5ce1659",
          "sid": "AC9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a",
          "status": "active",
          "subresource_uris": {
            "available_phone_numbers": "/2010-04-01/Accounts/AC9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a/AvailablePhoneNumbers.json",
            "calls": "/2010-04-01/Accounts/AC9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a/Calls.json",
            "incoming_phone_numbers": "/2010-04-01/Accounts/AC9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a/IncomingPhoneNumbers.json",
            "messages": "/2010-04-01/Accounts/AC9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a/Messages.json",
            "balance": "/2010-04-01/Accounts/AC9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a/Balance.json"
          },
          "type": "Full",
          "uri": "/2010-04-01/Accounts/AC9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a.json"
        }
        """#, secrets: ["e5306cc42b52d4f7c5cec96b16e9c7d1"]),

        // MARK: Kubernetes

        RedactionFixture("Kubernetes: list Pods (PodList, chunked with a continue token)", source: "https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks", contentType: "application/json", body: #"""
        {
          "kind": "PodList",
          "apiVersion": "v1",
          "metadata": {
            "resourceVersion": "12345",
            "continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzNDUsInN0YXJ0IjoicG9kLWEifQ",
            "remainingItemCount": 41
          },
          "items": [
            {
              "metadata": {
                "name": "pod-a",
                "generateName": "web-5d78c9869d-",
                "namespace": "default",
                "uid": "3c2f7a8e-1b4d-4e6f-9a0c-5d7e8f1a2b3c",
                "resourceVersion": "12301",
                "creationTimestamp": "2024-05-06T09:12:44Z",
                "labels": {
                  "app": "web",
                  "pod-template-hash": "5d78c9869d"
                },
                "ownerReferences": [
                  {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": "web-5d78c9869d",
                    "uid": "a9e1c3b5-7d2f-4a6e-8c0b-1f3d5e7a9c2b",
                    "controller": true,
                    "blockOwnerDeletion": true
                  }
                ]
              },
              "spec": {
                "containers": [
                  {
                    "name": "nginx",
                    "image": "nginx:1.25.3",
                    "ports": [
                      {
                        "containerPort": 80,
                        "protocol": "TCP"
                      }
                    ],
                    "resources": {},
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                    "imagePullPolicy": "IfNotPresent"
                  }
                ],
                "restartPolicy": "Always",
                "terminationGracePeriodSeconds": 30,
                "dnsPolicy": "ClusterFirst",
                "serviceAccountName": "default",
                "nodeName": "node-1",
                "schedulerName": "default-scheduler"
              },
              "status": {
                "phase": "Running",
                "conditions": [
                  {
                    "type": "Ready",
                    "status": "True",
                    "lastProbeTime": null,
                    "lastTransitionTime": "2024-05-06T09:12:51Z"
                  }
                ],
                "hostIP": "10.0.0.12",
                "podIP": "10.244.1.7",
                "podIPs": [
                  {
                    "ip": "10.244.1.7"
                  }
                ],
                "startTime": "2024-05-06T09:12:44Z",
                "containerStatuses": [
                  {
                    "name": "nginx",
                    "state": {
                      "running": {
                        "startedAt": "2024-05-06T09:12:50Z"
                      }
                    },
                    "lastState": {},
                    "ready": true,
                    "restartCount": 0,
                    "image": "docker.io/library/nginx:1.25.3",
                    "imageID": "docker.io/library/nginx@sha256:a0f735d0666573be70f3aab40f64f50d7b49ccf98c29e41e2a085508082db29c",
                    "containerID": "containerd://6390f71af6806e9a5a01fb612d755c1faccff413b8df35dd829f033a0bfdf2b0",
                    "started": true
                  }
                ],
                "qosClass": "BestEffort"
              }
            }
          ]
        }
        """#, secrets: []),

        RedactionFixture("Kubernetes: read a Deployment", source: "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/deployment-v1/", contentType: "application/json", body: #"""
        {
          "kind": "Deployment",
          "apiVersion": "apps/v1",
          "metadata": {
            "name": "web",
            "namespace": "default",
            "uid": "7b3e9f1a-2c4d-4e8f-b6a0-9d1c3e5f7a8b",
            "resourceVersion": "12298",
            "generation": 3,
            "creationTimestamp": "2024-04-30T16:20:05Z",
            "labels": {
              "app": "web"
            },
            "annotations": {
              "deployment.kubernetes.io/revision": "3"
            }
          },
          "spec": {
            "replicas": 3,
            "selector": {
              "matchLabels": {
                "app": "web"
              }
            },
            "template": {
              "metadata": {
                "creationTimestamp": null,
                "labels": {
                  "app": "web"
                }
              },
              "spec": {
                "containers": [
                  {
                    "name": "nginx",
                    "image": "nginx:1.25.3",
                    "ports": [
                      {
                        "containerPort": 80,
                        "protocol": "TCP"
                      }
                    ],
                    "resources": {
                      "limits": {
                        "cpu": "500m",
                        "memory": "128Mi"
                      }
                    },
                    "imagePullPolicy": "IfNotPresent"
                  }
                ],
                "restartPolicy": "Always",
                "terminationGracePeriodSeconds": 30,
                "dnsPolicy": "ClusterFirst"
              }
            },
            "strategy": {
              "type": "RollingUpdate",
              "rollingUpdate": {
                "maxUnavailable": "25%",
                "maxSurge": "25%"
              }
            },
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600
          },
          "status": {
            "observedGeneration": 3,
            "replicas": 3,
            "updatedReplicas": 3,
            "readyReplicas": 3,
            "availableReplicas": 3,
            "conditions": [
              {
                "type": "Available",
                "status": "True",
                "lastUpdateTime": "2024-05-06T09:12:58Z",
                "lastTransitionTime": "2024-05-06T09:12:58Z",
                "reason": "MinimumReplicasAvailable",
                "message": "Deployment has minimum availability."
              },
              {
                "type": "Progressing",
                "status": "True",
                "lastUpdateTime": "2024-05-06T09:13:02Z",
                "lastTransitionTime": "2024-04-30T16:20:05Z",
                "reason": "NewReplicaSetAvailable",
                "message": "ReplicaSet \"web-5d78c9869d\" has successfully progressed."
              }
            ]
          }
        }
        """#, secrets: []),

        RedactionFixture("Kubernetes: read a ConfigMap", source: "https://kubernetes.io/docs/reference/kubernetes-api/config-and-storage-resources/config-map-v1/", contentType: "application/json", body: #"""
        {
          "kind": "ConfigMap",
          "apiVersion": "v1",
          "metadata": {
            "name": "game-demo",
            "namespace": "default",
            "uid": "d4f6a8c0-3e5b-4d7f-9a1c-2b4e6f8a0c1d",
            "resourceVersion": "11873",
            "creationTimestamp": "2024-05-02T08:04:31Z"
          },
          "data": {
            "player_initial_lives": "3",
            "ui_properties_file_name": "user-interface.properties",
            "game.properties": "enemy.types=aliens,monsters\nplayer.maximum-lives=5\n",
            "user-interface.properties": "color.good=purple\ncolor.bad=yellow\nallow.textmode=true\n"
          }
        }
        """#, secrets: []),

        RedactionFixture("Kubernetes: list Events (core/v1 EventList)", source: "https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/event-v1/", contentType: "application/json", body: #"""
        {
          "kind": "EventList",
          "apiVersion": "v1",
          "metadata": {
            "resourceVersion": "12352"
          },
          "items": [
            {
              "metadata": {
                "name": "pod-a.17cd1e2b8f4a9c30",
                "namespace": "default",
                "uid": "5e7a9c1b-3d5f-4b7d-8e0a-6c8e0a2c4e6f",
                "resourceVersion": "12299",
                "creationTimestamp": "2024-05-06T09:12:45Z"
              },
              "involvedObject": {
                "kind": "Pod",
                "namespace": "default",
                "name": "pod-a",
                "uid": "3c2f7a8e-1b4d-4e6f-9a0c-5d7e8f1a2b3c",
                "apiVersion": "v1",
                "resourceVersion": "12290",
                "fieldPath": "spec.containers{nginx}"
              },
              "reason": "Pulled",
              "message": "Container image \"nginx:1.25.3\" already present on machine",
              "source": {
                "component": "kubelet",
                "host": "node-1"
              },
              "firstTimestamp": "2024-05-06T09:12:45Z",
              "lastTimestamp": "2024-05-06T09:12:45Z",
              "count": 1,
              "type": "Normal",
              "eventTime": null,
              "reportingComponent": "kubelet",
              "reportingInstance": "node-1"
            },
            {
              "metadata": {
                "name": "web-5d78c9869d.17cd1e2a6b0f3d12",
                "namespace": "default",
                "uid": "9a1c3e5f-7b9d-4f1b-a3c5-e7f9a1c3e5b7",
                "resourceVersion": "12287",
                "creationTimestamp": "2024-05-06T09:12:44Z"
              },
              "involvedObject": {
                "kind": "ReplicaSet",
                "namespace": "default",
                "name": "web-5d78c9869d",
                "uid": "a9e1c3b5-7d2f-4a6e-8c0b-1f3d5e7a9c2b",
                "apiVersion": "apps/v1",
                "resourceVersion": "12285"
              },
              "reason": "SuccessfulCreate",
              "message": "Created pod: pod-a",
              "source": {
                "component": "replicaset-controller"
              },
              "firstTimestamp": "2024-05-06T09:12:44Z",
              "lastTimestamp": "2024-05-06T09:12:44Z",
              "count": 1,
              "type": "Normal",
              "eventTime": null,
              "reportingComponent": "replicaset-controller",
              "reportingInstance": ""
            }
          ]
        }
        """#, secrets: []),

        // MARK: Amazon S3

        RedactionFixture("S3: ListObjects (ListBucketResult)", source: "https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjects.html", contentType: "application/xml", body: #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
          <Name>example-bucket</Name>
          <Prefix></Prefix>
          <Marker></Marker>
          <MaxKeys>1000</MaxKeys>
          <IsTruncated>false</IsTruncated>
          <Contents>
            <Key>photos/2024/my-image.jpg</Key>
            <LastModified>2024-05-06T17:50:30.000Z</LastModified>
            <ETag>&quot;fba9dede5f27731c9771645a39863328&quot;</ETag>
            <Size>434234</Size>
            <StorageClass>STANDARD</StorageClass>
            <Owner>
              <ID>75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a</ID>
              <DisplayName>mtd@amazon.com</DisplayName>
            </Owner>
          </Contents>
          <Contents>
            <Key>photos/2024/my-third-image.jpg</Key>
            <LastModified>2024-05-06T17:50:30.000Z</LastModified>
            <ETag>&quot;1b2cf535f27731c974343645a3985328&quot;</ETag>
            <Size>64994</Size>
            <StorageClass>STANDARD_IA</StorageClass>
            <Owner>
              <ID>75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a</ID>
              <DisplayName>mtd@amazon.com</DisplayName>
            </Owner>
          </Contents>
        </ListBucketResult>
        """#, secrets: []),

        RedactionFixture("S3: error response (NoSuchKey)", source: "https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html", contentType: "application/xml", body: #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <Error>
          <Code>NoSuchKey</Code>
          <Message>The specified key does not exist.</Message>
          <Key>photos/2024/missing.jpg</Key>
          <RequestId>4442587FB7D0A2F9</RequestId>
          <HostId>7nT+3GkDJOcr0qN1bvGZ5Bv/jyW4kTnDl+Ux9fV4DQT1oB0bTqS9bVxQe3KpNQ0ZiRt6hQ8GyYk=</HostId>
        </Error>
        """#, secrets: []),

        RedactionFixture("S3: ListBuckets (ListAllMyBucketsResult)", source: "https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListBuckets.html", contentType: "application/xml", body: #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <ListAllMyBucketsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
          <Owner>
            <ID>75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a</ID>
            <DisplayName>webfile</DisplayName>
          </Owner>
          <Buckets>
            <Bucket>
              <Name>example-bucket</Name>
              <CreationDate>2019-12-11T23:32:47.000Z</CreationDate>
            </Bucket>
            <Bucket>
              <Name>example-logs-us-east-1</Name>
              <CreationDate>2021-03-02T10:08:19.000Z</CreationDate>
            </Bucket>
          </Buckets>
        </ListAllMyBucketsResult>
        """#, secrets: []),
    ]
}
