// graphql_corpus.mjs — fixed documents for the graphql-js differential test: the examples of
// the GraphQL specification (October 2021 and the current draft, section by section, valid and
// "counter-example" alike), and hand-written corners the generator reaches only by luck.
//
// Owns: the list. Each entry is checked by graphql_diff.mjs exactly like a generated document:
// sluice and graphql-js must agree on accept/reject, the printed form and the error.

export const SPEC_EXAMPLES = [
  // 2.1 Source text, ignored tokens, comments, commas
  '{\n  # a comment\n  id, name,, ,\n}',
  '\uFEFF{ a }',
  'query { a }\r\n\r\nquery B { b }\r',
  // 2.2 Document, 2.3 operations
  'mutation {\n  likeStory(storyID: 12345) {\n    story {\n      likeCount\n    }\n  }\n}',
  '{\n  field\n}',
  'query getName { dog { name } }\nquery getOwnerName { dog { owner { name } } }',
  // 2.4 selection sets, 2.5 fields
  '{\n  id\n  firstName\n  lastName\n}',
  '{\n  me {\n    id\n    firstName\n    lastName\n    birthday {\n      month\n      day\n    }\n    friends {\n      name\n    }\n  }\n}',
  '# `me` could represent the currently logged in viewer.\n{\n  me {\n    name\n  }\n}\n\n# `user` represents one of many users in a graph of data, referred to by a\n# unique identifier.\n{\n  user(id: 4) {\n    name\n  }\n}',
  // 2.6 arguments
  '{\n  user(id: 4) {\n    id\n    name\n    profilePic(size: 100)\n  }\n}',
  '{\n  user(id: 4) {\n    id\n    name\n    profilePic(width: 100, height: 50)\n  }\n}',
  '{\n  picture(width: 200, height: 100)\n}\n{\n  picture(height: 100, width: 200)\n}',
  // 2.7 aliases
  '{\n  user(id: 4) {\n    id\n    name\n    smallPic: profilePic(size: 64)\n    bigPic: profilePic(size: 1024)\n  }\n}',
  '{\n  zuck: user(id: 4) {\n    id\n    name\n  }\n}',
  // 2.8 fragments
  'query noFragments {\n  user(id: 4) {\n    friends(first: 10) {\n      id\n      name\n      profilePic(size: 50)\n    }\n    mutualFriends(first: 10) {\n      id\n      name\n      profilePic(size: 50)\n    }\n  }\n}',
  'query withFragments {\n  user(id: 4) {\n    friends(first: 10) {\n      ...friendFields\n    }\n    mutualFriends(first: 10) {\n      ...friendFields\n    }\n  }\n}\n\nfragment friendFields on User {\n  id\n  name\n  profilePic(size: 50)\n}',
  'query withNestedFragments {\n  user(id: 4) {\n    friends(first: 10) {\n      ...friendFields\n    }\n  }\n}\n\nfragment friendFields on User {\n  id\n  name\n  ...standardProfilePic\n}\n\nfragment standardProfilePic on User {\n  profilePic(size: 50)\n}',
  'query FragmentTyping {\n  profiles(handles: ["zuck", "coca-cola"]) {\n    handle\n    ...userFragment\n    ...pageFragment\n  }\n}\n\nfragment userFragment on User {\n  friends {\n    count\n  }\n}\n\nfragment pageFragment on Page {\n  likers {\n    count\n  }\n}',
  'query inlineFragmentTyping {\n  profiles(handles: ["zuck", "coca-cola"]) {\n    handle\n    ... on User {\n      friends {\n        count\n      }\n    }\n    ... on Page {\n      likers {\n        count\n      }\n    }\n  }\n}',
  'query inlineFragmentNoType($expandedInfo: Boolean) {\n  user(handle: "zuck") {\n    id\n    name\n    ... @include(if: $expandedInfo) {\n      firstName\n      lastName\n      birthday\n    }\n  }\n}',
  // 2.9 input values
  '{ a(i: 0, j: -0, k: 123, f: 1.0, g: 1e50, h: 6.0221413e23, m: 1E-3, n: -1.5e+3) }',
  '{ a(x: 0x1) }', '{ a(x: 00) }', '{ a(x: 1.) }', '{ a(x: .5) }', '{ a(x: 1e) }', '{ a(x: 1.5e) }',
  '{ a(x: 1.2.3) }', '{ a(x: 123abc) }', '{ a(x: -) }', '{ a(x: -a) }', '{ a(x: 0xF1) }',
  '{ a(x: 1.23.4) }', '{ a(x: 1__2) }',
  '{ a(t: true, f: false, n: null, e: RED, l: [1, 2, 3], o: {lon: 12.43, lat: -53.211}) }',
  '{ a(s: "Hello, World", e: "", u: "\\u00e9\\u{1F600}\\uD83D\\uDE00", c: "\\b\\f\\n\\r\\t\\"\\\\\\/") }',
  '{ a(s: "\\u{0}\\u{00000041}\\u{10FFFF}") }',
  '{ a(s: "\\u{110000}") }', '{ a(s: "\\u{D800}") }', '{ a(s: "\\uD800") }', '{ a(s: "\\uDE00") }',
  '{ a(s: "\\uD83D\\u0041") }', '{ a(s: "\\u{}") }', '{ a(s: "\\u{123456789}") }', '{ a(s: "\\x") }',
  '{ a(s: "unterminated) }', '{ a(s: "line\nbreak") }',
  '{ a(s: """\n    Hello,\n      World!\n\n    Yours,\n      GraphQL.\n  """) }',
  '{ a(s: """This is a block string\\""" with an escaped triple quote""") }',
  '{ a(s: """\n\n  leading and trailing blank lines\n\n""") }',
  '{ a(s: """  first line keeps its indent\n    second\n   third""") }',
  '{ a(s: """\r\n  crlf\r\n    lines\r\n""") }',
  '{ a(s: """\ttab\n\t\tindented\n""") }',
  '{ a(s: """ends with a quote"""") }', '{ a(s: """ends with \\"""") }', '{ a(s: """""") }',
  '{ a(s: """unterminated) }',
  '{ a(l: [], o: {}, n: [[1], [2, [3]]], m: {a: {b: [ {c: null} ]}}) }',
  'query ($v: [Int] = [1, 2]) { a(x: $v) }',
  'query ($v: Int = $other) { a }',
  '{ a(x: $var) }',
  // 2.10 variables
  'query getZuckProfile($devicePicSize: Int) {\n  user(id: 4) {\n    id\n    name\n    profilePic(size: $devicePicSize)\n  }\n}',
  // 2.11 type references
  'query ($a: Int, $b: [Int], $c: Int!, $d: [Int!]!, $e: [[Int!]]!) { a }',
  'query ($a: Int!!) { a }', 'query ($a: [Int) { a }',
  // 2.12 directives
  'query myQuery($someTest: Boolean!) {\n  experimentalField @skip(if: $someTest)\n}',
  'type Foo @addExternalFields(source: "profiles") @excludeField(name: "photo") {\n  name: String\n}',
  'query ($v: Int @a @b(c: 1)) @q { f @x ...F @y ... on T @z { g } ... @w { h } }\nfragment F on T @f { a }',
  // 3 type system
  '"""\nA simple GraphQL schema which is well described.\n"""\nschema {\n  query: Query\n}\n\n"""\nRoot type for all your query operations\n"""\ntype Query {\n  """\n  Translates a string from a given language into a different language.\n  """\n  translate(\n    "The original language that `text` is provided in."\n    fromLanguage: Language\n\n    "The translated language to be returned."\n    toLanguage: Language\n\n    "The text to be translated."\n    text: String\n  ): String\n}\n\n"""\nThe set of languages supported by `translate`.\n"""\nenum Language {\n  "English"\n  EN\n\n  "French"\n  FR\n\n  "Chinese"\n  CH\n}',
  'schema {\n  query: MyQueryRootType\n  mutation: MyMutationRootType\n}\n\ntype MyQueryRootType {\n  someField: String\n}\n\ntype MyMutationRootType {\n  setSomeField(to: String): String\n}',
  'extend schema @addedDirective\nextend schema {\n  subscription: SubscriptionRoot\n}',
  'scalar Time\nscalar Url @specifiedBy(url: "https://tools.ietf.org/html/rfc3986")\nextend scalar Time @addedDirective',
  'type Person {\n  name: String\n  age: Int\n  picture: Url\n  relationship: Person\n}',
  'type Person {\n  name: String\n  picture(size: Int): Url\n}',
  'type ExampleType {\n  oldField: String @deprecated\n}',
  'extend type Story {\n  isHiddenLocally: Boolean\n}\nextend type User @addedDirective',
  'interface NamedEntity {\n  name: String\n}\n\ninterface ValuedEntity {\n  value: Int\n}\n\ntype Person implements NamedEntity {\n  name: String\n  age: Int\n}\n\ntype Business implements NamedEntity & ValuedEntity {\n  name: String\n  value: Int\n  employeeCount: Int\n}',
  'interface Node {\n  id: ID!\n}\n\ninterface Resource implements Node {\n  id: ID!\n  url: String\n}\n\ninterface Image implements Resource & Node {\n  id: ID!\n  url: String\n  thumbnail: String\n}',
  'extend interface NamedEntity {\n  nickname: String\n}\nextend interface NamedEntity @addedDirective',
  'union SearchResult = Photo | Person\nunion SearchResult2 =\n  | Photo\n  | Person\nextend union SearchResult = Video',
  'enum Direction {\n  NORTH\n  EAST\n  SOUTH\n  WEST\n}\nextend enum Direction { UP }',
  'input Point2D {\n  x: Float\n  y: Float\n}\nextend input Point2D @a',
  'input ExampleInputObject {\n  a: String\n  b: Int!\n}',
  'directive @example on FIELD\n\nfragment SomeFragment on SomeType {\n  field @example\n}',
  'directive @delegateField(name: String!) repeatable on OBJECT | INTERFACE\n\ntype Book @delegateField(name: "pageCount") @delegateField(name: "author") {\n  id: ID!\n}',
  'directive @example on\n  | FIELD\n  | FRAGMENT_SPREAD\n  | INLINE_FRAGMENT',
  'directive @example on FIELD_DEFINITION | ARGUMENT_DEFINITION\ntype SomeType {\n  field(arg: Int @example): String @example\n}',
  'directive @d on NOT_A_LOCATION', 'directive @d on FIELD | 5', 'directive @d repeatable',
  'directive @skip(if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT',
  'directive @deprecated(\n  reason: String = "No longer supported"\n) on FIELD_DEFINITION | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | ENUM_VALUE',
  // draft: descriptions on executable definitions
  '"Operation description" query Q { a }', '"""Fragment""" fragment F on T { a }',
  'query ("var" $a: Int) { a }', '"shorthand" { a }', '"d" extend type T @x',
  '"d" 5', '"d"',
  // counter-examples and odd corners
  '', ' ', '# only a comment', '{}', '{ a', '{ a }}', 'query', 'query Q', 'fragment on on T { a }',
  'fragment F on T', 'fragment F T { a }', '{ ...on }', '{ ... on { a } }', '{ ...F @ }',
  'enum E { true }', 'enum E { null }', 'enum E { A B }', 'extend type T', 'extend scalar S',
  'extend schema', 'extend union U', 'extend enum E', 'extend input I', 'extend directive @d',
  'extend foo', 'type T implements A B { f: Int }', 'type T implements & A & B',
  'type T { f(): Int }', 'type T {}', 'input I { a: Int = $v }', 'schema { query Q }',
  'schema { foo: Q }', '{ a(b: ) }', '{ a(: 1) }', '{ a(b: 1 }', '{ a: }', '{ a: b: c }',
  "{ a(b: 'single') }", '{ a } $', '{ a } ..', '{ a } .', '{ \u0007 }', '{ a\u00e9 }',
  '{ \u{1F600} }', 'query Q($a: Int = 1 @d) { a }', 'query Q($a) { a }', 'query Q(a: Int) { a }',
  'subscription S { s }', 'mutation { m }', 'query Q @d { a }', '{ a @d(x: [$v, {y: $w}]) }',
  'type Q { f(a: Int = [1, {b: "c"}]): [[String!]!] }',
  '{ f(aVeryLongArgumentNameNumberOne: "value one", aVeryLongArgumentNameNumberTwo: 2) }',
  '{ f(a: "1234567890123456789012345678901234567890123456789012345678901234567890123456") }',
  '{ f(a: "12345678901234567890123456789012345678901234567890123456789012345678901234") }',
  '{ f(a: """x""", b: """multi\nline""") { g(c: """\n  indented\n  block\n""") } }',
  'query ($a: String = """multi\nline""") { a }',
  'type T { f("""multi\nline""" a: Int, b: Int): Int }',
  'directive @d("""multi\nline""" a: Int) on FIELD',
  'query {\n  a\n}', 'query Q {\n  a\n}', '{ __typename __schema { types { name } } }',
  '{ a(b: "\u{1F600}") $ }', '{ a(b: "\u{1F600}\u00e9") \u0001 }',
  // the 80-unit argument rule and the 70-unit block string rule count UTF-16 units: an
  // astral character is two, a Latin-1 one is one (whatever their UTF-8 length)
  ...[35, 36, 37, 38].map((k) => `{ f(a: "${'\u{1F600}'.repeat(k)}") }`),
  ...[72, 73, 74].map((k) => `{ f(a: "${'\u00e9'.repeat(k)}") }`),
  ...[34, 35, 36].map((k) => `{ f(a: """${'\u{1F600}'.repeat(k)}""") }`),
  ...[69, 70, 71].map((k) => `{ f(a: """${'\u00e9'.repeat(k)}""") }`),
];
