/*
 * duckdb_plan.cpp — one bind through DuckDB's C++ API, translated into sluice's own tree
 * (duckdb_plan.h; issue 23, docs/architecture.md "Binding once").
 *
 * Owns: the only place DuckDB's C++ types appear. A translator, never a decider: every class is
 * named as json_serialize_plan names it (EnumUtil, static strings of the library) for lang/sql's
 * fail-closed walker, whose tables therefore stay as they are. Compiled only against the C++
 * headers of the very release of libduckdb.so it links (CMakeLists.txt checks the pair): in that
 * release a duckdb_connection is a duckdb::Connection * and a duckdb_value a duckdb::Value *
 * (src/main/capi/duckdb-c.cpp, value-c.cpp), so the casts below are exact for it and only for it.
 * Does not own: which statements may run (lang/sql), opening databases (exec/duckdb.c).
 */
#include "exec/duckdb_plan.h"

#include "exec/duckdb_process.h"
extern "C" {
#include "core/tree.h"
#include "core/utf8.h"
#include "exec/executor.h" /* sluice_executor_bind_tree, declared for C */
}

#include "duckdb/catalog/catalog_entry/table_catalog_entry.hpp"
#include "duckdb/catalog/catalog_entry/table_function_catalog_entry.hpp"
#include "duckdb/catalog/catalog_transaction.hpp"
#include "duckdb/common/enum_util.hpp"
#include "duckdb/common/error_data.hpp"
#include "duckdb/common/exception.hpp"
#include "duckdb/common/render_tree.hpp"
#include "duckdb/common/serializer/serializer.hpp"
#include "duckdb/common/types/blob.hpp"
#include "duckdb/common/types/string_type.hpp"
#include "duckdb/execution/column_binding_resolver.hpp"
#include "duckdb/execution/operator/aggregate/physical_hash_aggregate.hpp"
#include "duckdb/execution/operator/aggregate/physical_window.hpp"
#include "duckdb/execution/operator/filter/physical_filter.hpp"
#include "duckdb/execution/operator/join/physical_asof_join.hpp"
#include "duckdb/execution/operator/join/physical_hash_join.hpp"
#include "duckdb/execution/operator/join/physical_iejoin.hpp"
#include "duckdb/execution/operator/join/physical_nested_loop_join.hpp"
#include "duckdb/execution/operator/join/physical_piecewise_merge_join.hpp"
#include "duckdb/execution/operator/order/physical_top_n.hpp"
#include "duckdb/execution/operator/projection/physical_projection.hpp"
#include "duckdb/execution/operator/projection/physical_tableinout_function.hpp"
#include "duckdb/execution/operator/scan/physical_column_data_scan.hpp"
#include "duckdb/execution/operator/scan/physical_table_scan.hpp"
#include "duckdb/execution/operator/set/physical_cte.hpp"
#include "duckdb/execution/operator/set/physical_recursive_cte.hpp"
#include "duckdb/execution/physical_operator.hpp"
#include "duckdb/execution/physical_plan_generator.hpp"
#include "duckdb/main/capi/capi_internal.hpp"
#include "duckdb/main/client_config.hpp"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/client_context_state.hpp"
#include "duckdb/main/client_data.hpp"
#include "duckdb/main/connection.hpp"
#include "duckdb/main/prepared_statement_data.hpp"
#include "duckdb/main/secret/secret_manager.hpp"
#include "duckdb/optimizer/optimizer.hpp"
#include "duckdb/parser/parser.hpp"
#include "duckdb/parser/statement/select_statement.hpp"
#include "duckdb/planner/expression.hpp"
#include "duckdb/planner/expression/bound_aggregate_expression.hpp"
#include "duckdb/planner/expression/bound_columnref_expression.hpp"
#include "duckdb/planner/expression/bound_constant_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/planner/expression/bound_reference_expression.hpp"
#include "duckdb/planner/expression/bound_window_expression.hpp"
#include "duckdb/planner/expression_iterator.hpp"
#include "duckdb/planner/logical_operator.hpp"
#include "duckdb/planner/logical_operator_visitor.hpp"
#include "duckdb/planner/operator/logical_explain.hpp"
#include "duckdb/planner/operator/logical_get.hpp"
#include "duckdb/planner/planner.hpp"
#include "utf8proc_wrapper.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

namespace
{

/* Thrown inside the translation, caught at the C boundary below (never crosses it). */
struct plan_fail {
    sluice_status status;
};

struct translator {
    sluice_arena *arena;
    sluice_duckdb_plan *plan;

    const char *dup(const std::string &s)
    {
        char *p = sluice_arena_strndup(arena, s.data(), s.size());
        if (p == nullptr)
            throw plan_fail{ SLUICE_E_NOMEM };
        return p;
    }

    template <typename T> T **array(size_t n)
    {
        if (n == 0)
            return nullptr;
        void *p = sluice_arena_calloc(arena, n, sizeof(T *));
        if (p == nullptr)
            throw plan_fail{ SLUICE_E_NOMEM };
        return static_cast<T **>(p);
    }

    template <typename T> T *node()
    {
        void *p = sluice_arena_calloc(arena, 1, sizeof(T));
        if (p == nullptr)
            throw plan_fail{ SLUICE_E_NOMEM };
        return static_cast<T *>(p);
    }

    static void check_depth(int depth)
    {
        if (depth > SLUICE_DUCKDB_PLAN_MAX_DEPTH)
            throw plan_fail{ SLUICE_E_LIMIT };
    }

    /* The name of the function an expression calls; "" for every other class. */
    static const std::string *function_name(const duckdb::Expression &e)
    {
        switch (e.GetExpressionClass()) {
        case duckdb::ExpressionClass::BOUND_FUNCTION:
            return &e.Cast<duckdb::BoundFunctionExpression>().function.name;
        case duckdb::ExpressionClass::BOUND_AGGREGATE:
            return &e.Cast<duckdb::BoundAggregateExpression>().function.name;
        case duckdb::ExpressionClass::BOUND_WINDOW: {
            auto &w = e.Cast<duckdb::BoundWindowExpression>();
            return w.aggregate ? &w.aggregate->name : nullptr;
        }
        default:
            return nullptr;
        }
    }

    sluice_duckdb_expr *expr(const duckdb::Expression &e, int depth)
    {
        check_depth(depth);
        auto *x = node<sluice_duckdb_expr>();
        plan->n_exprs++;
        x->cls = duckdb::EnumUtil::ToChars(e.GetExpressionClass());
        x->type = duckdb::EnumUtil::ToChars(e.GetExpressionType());
        const std::string *fn = function_name(e);
        x->name = fn != nullptr ? dup(*fn) : "";
        x->alias = dup(e.alias);
        x->table_index = SLUICE_DUCKDB_PLAN_NONE;
        x->column_index = SLUICE_DUCKDB_PLAN_NONE;
        if (e.GetExpressionClass() == duckdb::ExpressionClass::BOUND_COLUMN_REF) {
            auto &ref = e.Cast<duckdb::BoundColumnRefExpression>();
            x->table_index = ref.binding.table_index;
            x->column_index = ref.binding.column_index;
        } else if (e.GetExpressionClass() == duckdb::ExpressionClass::BOUND_REF) {
            x->column_index = e.Cast<duckdb::BoundReferenceExpression>().index;
        } else if (e.GetExpressionClass() == duckdb::ExpressionClass::BOUND_CONSTANT) {
            auto &v = e.Cast<duckdb::BoundConstantExpression>().value;
            x->constant_is_null = v.IsNull();
            x->constant = dup(v.ToString());
        }
        std::vector<const duckdb::Expression *> kids;
        duckdb::ExpressionIterator::EnumerateChildren(
            e, [&](const duckdb::Expression &child) { kids.push_back(&child); });
        x->n_children = kids.size();
        x->children = array<sluice_duckdb_expr>(kids.size());
        for (size_t i = 0; i < kids.size(); i++)
            x->children[i] = expr(*kids[i], depth + 1);
        return x;
    }

    sluice_duckdb_op *op(duckdb::LogicalOperator &o, int depth)
    {
        check_depth(depth);
        auto *n = node<sluice_duckdb_op>();
        plan->n_ops++;
        n->name = duckdb::EnumUtil::ToChars(o.type);
        n->estimated_cardinality =
            o.has_estimated_cardinality ? o.estimated_cardinality : SLUICE_DUCKDB_PLAN_NONE;
        if (o.type == duckdb::LogicalOperatorType::LOGICAL_GET) {
            auto &get = o.Cast<duckdb::LogicalGet>();
            n->function = dup(get.function.name);
            auto table = get.GetTable();
            n->table = table ? dup(table->name) : "";
        }
        std::vector<duckdb::Expression *> exprs;
        duckdb::LogicalOperatorVisitor::EnumerateExpressions(
            o, [&](duckdb::unique_ptr<duckdb::Expression> *e) { exprs.push_back(e->get()); });
        n->n_exprs = exprs.size();
        n->exprs = array<sluice_duckdb_expr>(exprs.size());
        for (size_t i = 0; i < exprs.size(); i++)
            n->exprs[i] = expr(*exprs[i], depth + 1);
        n->n_children = o.children.size();
        n->children = array<sluice_duckdb_op>(o.children.size());
        for (size_t i = 0; i < o.children.size(); i++)
            n->children[i] = op(*o.children[i], depth + 1);
        return n;
    }
};

duckdb::ClientContext &context_of(duckdb_connection conn)
{
    return *reinterpret_cast<duckdb::Connection *>(conn)->context;
}

/* DuckDB's own message, without the class prefix errors_as_json or what() would add. */
sluice_status engine_error(const std::exception &e, sluice_arena *arena, sluice_error *err)
{
    duckdb::ErrorData data(e);
    return sluice_error_set(err, arena, SLUICE_E_ENGINE, "DuckDB refused the statement: %s",
                            data.RawMessage().c_str());
}

sluice_status limit_error(sluice_status st, sluice_arena *arena, sluice_error *err)
{
    if (st == SLUICE_E_LIMIT)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                "the statement's plan nests deeper than %d operators and "
                                "expressions; simplify it (split it into smaller statements)",
                                SLUICE_DUCKDB_PLAN_MAX_DEPTH);
    return sluice_error_set(err, arena, st, "out of memory translating the statement's plan");
}

/* --- sluice_executor_bind_tree: DuckDB's own Serialize calls, written as jansson values ------ */

/* The text of a double as yyjson (DuckDB's JSON writer) writes it: the shortest digits that
 * read back exactly, as a decimal between 1e-6 and 1e21 (always with a fraction: "2.0"), in
 * exponent form ("1.5e-7", "1e21") outside it. The canonical form hashes that text. */
void yyjson_double(std::string &out, double v)
{
    if (v == 0) {
        out += std::signbit(v) ? "-0.0" : "0.0";
        return;
    }
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
    std::string sci(buf, r.ptr);
    if (sci[0] == '-') {
        out += '-';
        sci.erase(0, 1);
    }
    size_t e = sci.find('e');
    std::string digits = sci.substr(0, e);
    digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
    int exp10 = static_cast<int>(std::strtol(sci.c_str() + e + 1, nullptr, 10));
    int n = static_cast<int>(digits.size());
    int dot = exp10 + 1; /* where the point goes, counted from the first digit */
    if (-6 < dot && dot <= 21) {
        if (dot <= 0) {
            out += "0.";
            out.append(static_cast<size_t>(-dot), '0');
            out += digits;
        } else if (n <= dot) {
            out += digits;
            out.append(static_cast<size_t>(dot - n), '0');
            out += ".0";
        } else {
            out.append(digits, 0, static_cast<size_t>(dot));
            out += '.';
            out.append(digits, static_cast<size_t>(dot), std::string::npos);
        }
        return;
    }
    out += digits[0];
    if (n > 1) {
        out += '.';
        out.append(digits, 1, std::string::npos);
    }
    out += 'e';
    out += std::to_string(exp10);
}

/* Whether s[0..n) holds no byte yyjson escapes ('"', '\\', a control character): eight bytes at
 * a time (the last eight again when n is not a multiple; a shorter string padded with spaces),
 * each test the exact "some byte of w is below k" word test, (w - k * ones) & ~w & highs. */
bool json_plain(const char *s, size_t n)
{
    const uint64_t ones = 0x0101010101010101u;
    uint64_t below = 0;
    auto add = [&](uint64_t w) {
        uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');
        below |= ((w - ones * 0x20) & ~w) | ((quote - ones) & ~quote) |
                 ((backslash - ones) & ~backslash);
    };
    uint64_t w = ones * ' ';
    if (n < 8) {
        for (size_t i = 0; i < n; i++) /* shifted in: a memcpy of a few bytes is a call */
            w ^= static_cast<uint64_t>(static_cast<unsigned char>(s[i]) ^ ' ') << (8 * i);
        add(w);
    } else {
        for (size_t i = 0; i + 8 <= n; i += 8) {
            std::memcpy(&w, s + i, 8);
            add(w);
        }
        std::memcpy(&w, s + n - 8, 8);
        add(w);
    }
    return (below & (ones * 0x80)) == 0;
}

/* A byte buffer whose appends are inline: std::string's are calls into libstdc++ (an extern
 * template), and the parse tree's text made two or three for every value. Every append first
 * makes room for what it writes plus `slack` more, so a member head (key_head::text) and a short
 * value are written with copies of a fixed size. Grows like std::string (bad_alloc when it
 * cannot). */
class text_buffer
{
    std::unique_ptr<char[]> data;
    size_t len = 0;
    size_t cap = 0;

    /* Kept out of line, so that room() inlines into every append. */
    __attribute__((noinline)) void grow(size_t n)
    {
        size_t want = std::max(cap * 2, len + n + slack);
        std::unique_ptr<char[]> grown(new char[want]);
        if (len > 0)
            std::memcpy(grown.get(), data.get(), len);
        data = std::move(grown);
        cap = want;
    }

  public:
    static constexpr size_t slack = 64;

    /* Room for n more bytes and slack after them; the place to write them. */
    char *room(size_t n)
    {
        if (cap - len < n + slack)
            grow(n);
        return data.get() + len;
    }

    /* Takes n bytes written at room()'s place. */
    void advance(size_t n)
    {
        len += n;
    }

    void append(const char *s, size_t n)
    {
        std::memcpy(room(n), s, n);
        len += n;
    }

    void operator+=(char c)
    {
        *room(1) = c;
        len++;
    }

    void operator+=(const char *s)
    {
        append(s, std::strlen(s));
    }

    size_t size() const
    {
        return len;
    }

    void resize(size_t n)
    {
        if (n < len)
            len = n;
    }

    const char *bytes() const
    {
        return data.get();
    }
};

/* A string as yyjson writes it with DuckDB's flags: '"', '\\' and control characters escaped
 * (\b \t \n \f \r, else \u00XX), everything else, '/' and UTF-8 included, as is. Nearly every
 * string of a tree (names, enum labels) has nothing to escape: one append, not a byte-wise scan
 * and three. */
template <class Text> void yyjson_string(Text &out, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    constexpr size_t short_string = 126;
    if (n <= short_string && json_plain(s, n)) {
        if constexpr (std::is_same_v<Text, text_buffer>) { /* straight into its room */
            char *at = out.room(n + 2);
            at[0] = '"';
            std::memcpy(at + 1, s, n);
            at[n + 1] = '"';
            out.advance(n + 2);
        } else {
            char quoted[short_string + 2];
            quoted[0] = '"';
            std::memcpy(quoted + 1, s, n);
            quoted[n + 1] = '"';
            out.append(quoted, n + 2);
        }
        return;
    }
    out += '"';
    size_t run = 0; /* where the characters not yet copied start: copied a run at a time */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out.append(s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\f':
            out += "\\f";
            break;
        case '\r':
            out += "\\r";
            break;
        default:
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    out.append(s + run, n - run);
    out += '"';
}

/* The compact text json_serialize_* returns, written beside a serializer's value (the canonical
 * form hashes the parse tree's): members and elements as the serializer adds them, each
 * container closed as it ends, and an object that stayed empty taken back out, comma and key
 * too, as skip_empty leaves it out. Optionally without the numbers of one member name: the
 * canonical form is the parse tree's text less its "query_location" members. Written into a
 * text_buffer of its own and appended to the caller's string by finish(). */
class json_text
{
    struct frame {
        bool array;
        bool attached;     /* written in its parent (an empty list is not: DuckDB skips it) */
        bool first;        /* no member written yet: no comma */
        size_t mark;       /* the text's length before it */
        bool parent_first; /* its parent's `first` before it, for taking it back out */
    };
    std::string &dest;
    text_buffer out;
    const char *left_out; /* the member name whose numbers are not written, or nullptr */
    std::vector<frame> stack;

    /* A property name's member head, ",\"name\":", written once: a member is written per
     * value and a parse tree repeats a few dozen names hundreds of times (scanning and copying
     * each name every time was a seventh of the parse tree's serialization). Kept per thread by
     * the name's address, for the process's life: DuckDB's property names are string literals
     * of the library (tree_serializer keeps them uncopied on the same ground), so one address
     * always spells one name. */
    struct key_head {
        const char *key;
        size_t len; /* of text, comma included */
        char text[48];
    };
    static_assert(sizeof(key_head::text) < text_buffer::slack, "a head is copied whole");
    static thread_local std::array<key_head, 64> key_heads;

    /* key's head, or nullptr for a name too long to keep or one that needs escaping (never one
     * of DuckDB's: they are identifiers). */
    static const key_head *head_of(const char *key)
    {
        key_head &h = key_heads[(reinterpret_cast<uintptr_t>(key) * 0x9E3779B97F4A7C15u) >> 58];
        if (h.key == key)
            return &h;
        size_t len = std::strlen(key);
        if (len > sizeof(h.text) - 5) /* the copy from text + 1 stays inside text */
            return nullptr;
        for (size_t i = 0; i < len; i++) {
            unsigned char c = static_cast<unsigned char>(key[i]);
            if (c < 0x20 || c == '"' || c == '\\')
                return nullptr;
        }
        h.text[0] = ',';
        h.text[1] = '"';
        std::memcpy(h.text + 2, key, len);
        h.text[len + 2] = '"';
        h.text[len + 3] = ':';
        h.len = len + 4;
        h.key = key;
        return &h;
    }

    /* Starts a member of the current container (its comma; its key in an object); its value
     * follows in out. */
    void member(const char *key)
    {
        frame &cur = stack.back();
        bool comma = !cur.first;
        cur.first = false;
        if (cur.array) {
            if (comma)
                out += ',';
            return;
        }
        const key_head *h = head_of(key);
        if (h == nullptr) {
            if (comma)
                out += ',';
            yyjson_string(out, key, std::strlen(key));
            out += ':';
            return;
        }
        size_t skip = comma ? 0 : 1;
        /* the whole array, whatever the name's length: a copy of fixed size is a few moves */
        std::memcpy(out.room(sizeof h->text), h->text + skip, sizeof h->text - 1);
        out.advance(h->len - skip);
    }

  public:
    /* Opens the root object; members named without that hold a number are left out when
     * without is given. finish() appends the text to o. */
    json_text(std::string &o, const char *without) : dest(o), left_out(without)
    {
        out.room(4096); /* most statements' text fits: no regrowth while writing */
        stack.push_back(frame{ false, true, true, 0, true });
        out += '{';
    }

    /* Whether a number written now as member key is left out (an array's elements never are):
     * nothing of it is written, comma included, as canonical.c's strip drops it. */
    bool leaves_out(const char *key) const
    {
        return left_out != nullptr && !stack.back().array && key[0] == left_out[0] &&
               std::strcmp(key, left_out) == 0;
    }

    /* The member key: the integer v, as yyjson writes it. */
    template <class T> void integer(const char *key, T v)
    {
        member(key);
        char *at = out.room(24); /* 20 digits and a sign at most */
        out.advance(static_cast<size_t>(std::to_chars(at, at + 24, v).ptr - at));
    }

    void real(const char *key, double v)
    {
        member(key);
        std::string digits;
        yyjson_double(digits, v);
        out.append(digits.data(), digits.size());
    }

    void boolean(const char *key, bool v)
    {
        member(key);
        out += v ? "true" : "false";
    }

    void string(const char *key, const char *s, size_t n)
    {
        member(key);
        yyjson_string(out, s, n);
    }

    void open(const char *key, bool array, bool attach)
    {
        frame f{ array, attach, true, out.size(), stack.back().first };
        if (attach) {
            member(key);
            out += array ? '[' : '{';
        }
        stack.push_back(f);
    }

    void close()
    {
        frame f = stack.back();
        stack.pop_back();
        if (f.attached)
            out += f.array ? ']' : '}';
    }

    /* The current object stayed empty: it leaves its parent, text and all. */
    void drop()
    {
        frame f = stack.back();
        stack.pop_back();
        out.resize(f.mark);
        stack.back().first = f.parent_first;
    }

    /* Closes the root object and appends the text to the caller's string. */
    void finish()
    {
        out += '}';
        dest.append(out.bytes(), out.size());
    }
};

thread_local std::array<json_text::key_head, 64> json_text::key_heads;

/* What both serializers below write alike, whatever value they build: json_serialize_*'s
 * options (`json_serialize_*(..., skip_null := true, skip_empty := true)`: enums as strings,
 * default values written, nulls and empty strings left out), every integer width as one number,
 * float as double, every string form as bytes and a length (a NUL refused: json_loads refuses
 * \u0000), a blob up to its first NUL, a 128-bit integer as {"upper", "lower"}, no mark for
 * property ends or nullables (JSON has none), and, when the caller asks for it, the value's text
 * beside it, byte for byte as DuckDB writes it (json_text). Out builds the value: number (which
 * refuses NaN and infinity), string (which refuses invalid UTF-8), boolean, open(array, attach),
 * close() and close_object() (false when the object stayed empty and left its parent). */
template <class Out> class value_writer : public duckdb::Serializer
{
    std::optional<json_text> text;

    Out &out()
    {
        return static_cast<Out &>(*this);
    }

    template <class T> void integer(T v)
    {
        out().number(static_cast<double>(v));
        if (text && !text->leaves_out(tag))
            text->integer(tag, v);
    }

    /* n bytes holding no NUL (a terminated string's, measured by strlen) */
    void string_value(const char *s, size_t n)
    {
        if (n == 0)
            return; /* skip_empty */
        out().string(s, n);
        if (text)
            text->string(tag, s, n);
    }

    /* n bytes of a sized string, which may hold a NUL */
    void sized_string_value(const char *s, size_t n)
    {
        if (std::memchr(s, '\0', n) != nullptr)
            throw plan_fail{ SLUICE_E_INTERNAL }; /* json_loads refuses \u0000 */
        string_value(s, n);
    }

    void begin(bool array, bool attach)
    {
        out().open(array, attach);
        if (text)
            text->open(tag, array, attach);
    }

    void end()
    {
        out().close();
        if (text)
            text->close();
    }

  protected:
    /* The property being written: DuckDB's own name, a string literal of the library. */
    const char *tag = "";

    /* text_out, when given, receives the value's text after what it holds (less the integer
     * members named text_without, when given: json_text). */
    explicit value_writer(std::string *text_out, const char *text_without = nullptr)
    {
        options.serialize_enum_as_string = true;
        options.serialize_default_values = true;
        if (text_out != nullptr)
            text.emplace(*text_out, text_without);
    }

  public:
    /* Closes the root object's text; the root value itself is the caller's. */
    void finish()
    {
        if (text)
            text->finish();
    }

    void OnPropertyBegin(const duckdb::field_id_t, const char *t) final
    {
        tag = t;
    }
    void OnOptionalPropertyBegin(const duckdb::field_id_t, const char *t, bool) final
    {
        tag = t;
    }
    void OnPropertyEnd() final
    {
    }
    void OnOptionalPropertyEnd(bool) final
    {
    }
    void OnNullableBegin(bool) final
    {
    }
    void OnNullableEnd() final
    {
    }
    void WriteNull() final
    {
    }
    void OnListBegin(duckdb::idx_t count) final
    {
        begin(true, count > 0);
    }
    void OnListEnd() final
    {
        end();
    }
    void OnObjectBegin() final
    {
        begin(false, true);
    }
    void OnObjectEnd() final
    {
        bool kept = out().close_object();
        if (text) {
            if (kept)
                text->close();
            else
                text->drop();
        }
    }
    void WriteValue(bool v) final
    {
        out().boolean(v);
        if (text)
            text->boolean(tag, v);
    }
    void WriteValue(uint8_t v) final
    {
        integer(v);
    }
    void WriteValue(int8_t v) final
    {
        integer(v);
    }
    void WriteValue(uint16_t v) final
    {
        integer(v);
    }
    void WriteValue(int16_t v) final
    {
        integer(v);
    }
    void WriteValue(uint32_t v) final
    {
        integer(v);
    }
    void WriteValue(int32_t v) final
    {
        integer(v);
    }
    void WriteValue(uint64_t v) final
    {
        integer(v);
    }
    void WriteValue(int64_t v) final
    {
        integer(v);
    }
    void WriteValue(float v) final
    {
        WriteValue(static_cast<double>(v));
    }
    void WriteValue(double v) final
    {
        out().number(v);
        if (text)
            text->real(tag, v);
    }
    void WriteValue(const duckdb::string_t v) final
    {
        sized_string_value(v.GetData(), v.GetSize());
    }
    void WriteValue(const std::string &v) final
    {
        sized_string_value(v.data(), v.size());
    }
    void WriteValue(const char *v) final
    {
        string_value(v, std::strlen(v));
    }
    void WriteValue(duckdb::hugeint_t v) final
    {
        begin(false, true);
        WriteProperty(100, "upper", v.upper);
        WriteProperty(101, "lower", v.lower);
        end();
    }
    void WriteValue(duckdb::uhugeint_t v) final
    {
        begin(false, true);
        WriteProperty(100, "upper", v.upper);
        WriteProperty(101, "lower", v.lower);
        end();
    }
    void WriteDataPtr(duckdb::const_data_ptr_t ptr, duckdb::idx_t count) final
    {
        std::string blob =
            duckdb::Blob::ToString(duckdb::string_t(duckdb::const_char_ptr_cast(ptr), count));
        /* yyjson_mut_strcpy: up to the first NUL, and written even when empty */
        size_t n = std::strlen(blob.c_str());
        out().string(blob.data(), n);
        if (text)
            text->string(tag, blob.data(), n);
    }
};

/* DuckDB's Serializer interface writing json_serialize_*'s value straight into jansson values, as
 * json_loads(JSON_DECODE_INT_AS_REAL) would read its text (every number a real), for the route
 * that returns jansson (sluice_executor_bind_tree). The equality with the query's output is
 * tests/unit/test_exec_duckdb_bind_tree.c's corpus test. */
class jansson_serializer final : public value_writer<jansson_serializer>
{
    friend class value_writer<jansson_serializer>;

    struct frame {
        json_t *val;
        bool array;
        const char *key; /* its name in the parent object */
    };
    std::vector<frame> stack;

    static json_t *check(json_t *v)
    {
        if (v == nullptr)
            throw plan_fail{ SLUICE_E_INTERNAL }; /* NaN, infinity, bad UTF-8: json_loads too */
        return v;
    }

    /* Adds v (a new reference, taken) to the current object under tag or to the current array. */
    void push(json_t *v)
    {
        frame &cur = stack.back();
        int rc = cur.array ? json_array_append_new(cur.val, v)
                           : json_object_set_new_nocheck(cur.val, tag, v);
        if (rc != 0)
            throw plan_fail{ SLUICE_E_NOMEM };
    }

    /* A container, held by its parent from the start (an empty list is not: DuckDB skips it). */
    void open(bool array, bool attach)
    {
        json_t *v = check(array ? json_array() : json_object());
        try {
            frame f{ v, array, tag };
            if (attach)
                push(json_incref(v));
            stack.push_back(f);
        } catch (...) {
            json_decref(v); /* the frame's own reference: the parent's, if taken, is its own */
            throw;
        }
    }

    void close()
    {
        json_decref(stack.back().val);
        stack.pop_back();
    }

    bool close_object()
    {
        frame gone = stack.back();
        if (json_object_size(gone.val) > 0) {
            close();
            return true;
        }
        /* skip_empty: an empty object leaves its parent */
        stack.pop_back();
        frame &parent = stack.back();
        if (parent.array)
            json_array_remove(parent.val, json_array_size(parent.val) - 1);
        else
            json_object_del(parent.val, gone.key);
        json_decref(gone.val);
        return false;
    }

    void number(double v)
    {
        push(check(json_real(v)));
    }

    void string(const char *s, size_t n)
    {
        push(check(json_stringn(s, n)));
    }

    void boolean(bool v)
    {
        push(json_boolean(v));
    }

  public:
    using value_writer::WriteValue;
    /* Writes into root (an object the caller holds), and its text after text_out's content
     * when text_out is given. */
    jansson_serializer(json_t *root, std::string *text_out) : value_writer(text_out)
    {
        stack.push_back(frame{ root, false, "" });
    }

    /* A refusal or a failed allocation leaves containers open: their own references go here
     * (the root stays the caller's; what a parent holds goes with the parent). */
    ~jansson_serializer() override
    {
        for (size_t i = 1; i < stack.size(); i++)
            json_decref(stack[i].val);
    }
    jansson_serializer(const jansson_serializer &) = delete;
    jansson_serializer &operator=(const jansson_serializer &) = delete;
};

/* DuckDB's Serializer interface writing the value jansson_serializer writes into sluice's arena
 * tree (core/tree.h): the plan lang/sql's walker reads and the parse tree its facts, amplification
 * and canonical form read, with no malloc, hash or free per node. Keys are DuckDB's own property
 * names, string literals of the library (core/tree.h's keys are not copied). It refuses exactly
 * what jansson_serializer refuses (NaN, infinity, a NUL, invalid UTF-8:
 * plan_fail{SLUICE_E_INTERNAL}) and leaves out exactly what it leaves out. */
class tree_serializer final : public value_writer<tree_serializer>
{
    friend class value_writer<tree_serializer>;

    struct frame {
        sluice_tree *val;
        bool array;
        const char *key; /* its name in the parent object */
    };
    sluice_arena *arena;
    std::vector<frame> stack;

    static sluice_tree *made(sluice_tree *v)
    {
        if (v == nullptr)
            throw plan_fail{ SLUICE_E_NOMEM };
        return v;
    }

    /* Adds v to the current object under tag or to the current array. */
    void push(sluice_tree *v)
    {
        frame &cur = stack.back();
        sluice_status st = cur.array ? sluice_tree_append(arena, cur.val, made(v))
                                     : sluice_tree_set(arena, cur.val, tag, made(v));
        if (st != SLUICE_OK)
            throw plan_fail{ SLUICE_E_NOMEM };
    }

    /* A container, held by its parent from the start as jansson_serializer holds it (an empty
     * list is not: DuckDB skips it). */
    void open(bool array, bool attach)
    {
        sluice_tree *v = made(array ? sluice_tree_array(arena) : sluice_tree_object(arena));
        if (attach)
            push(v);
        stack.push_back(frame{ v, array, tag });
    }

    void close()
    {
        stack.pop_back();
    }

    bool close_object()
    {
        frame gone = stack.back();
        stack.pop_back();
        if (sluice_tree_member_count(gone.val) > 0)
            return true;
        /* skip_empty: an empty object leaves its parent */
        frame &parent = stack.back();
        if (parent.array)
            sluice_tree_pop(parent.val);
        else
            sluice_tree_del(parent.val, gone.key);
        return false;
    }

    void number(double v)
    {
        if (!std::isfinite(v))
            throw plan_fail{ SLUICE_E_INTERNAL }; /* json_real refuses it */
        push(sluice_tree_number(arena, v));
    }

    /* n bytes as jansson's json_stringn takes them: valid UTF-8 only. ASCII is passed eight
     * bytes at a time (no byte of the word has its high bit): nearly every string of a tree is
     * (names, enum labels), and a byte at a time was most of this call. */
    void string(const char *s, size_t n)
    {
        size_t i = 0;
        for (uint64_t w; n - i >= sizeof w; i += sizeof w) {
            std::memcpy(&w, s + i, sizeof w);
            if ((w & 0x8080808080808080ull) != 0)
                break;
        }
        while (i < n) {
            if (static_cast<unsigned char>(s[i]) < 0x80) {
                i++;
                continue;
            }
            size_t len = sluice_utf8_decode(s + i, n - i, nullptr);
            if (len == 0)
                throw plan_fail{ SLUICE_E_INTERNAL };
            i += len;
        }
        push(sluice_tree_string(arena, s, n));
    }

    void boolean(bool v)
    {
        push(sluice_tree_bool(arena, v));
    }

  public:
    using value_writer::WriteValue;
    /* Writes into root (an object the caller made and holds), and its text after text_out's
     * content when text_out is given (less the integer members named text_without, if given). */
    tree_serializer(sluice_arena *a,
                    sluice_tree *root,
                    std::string *text_out = nullptr,
                    const char *text_without = nullptr)
        : value_writer(text_out, text_without), arena(a)
    {
        stack.reserve(32); /* deeper than most trees: no regrowth while writing */
        stack.push_back(frame{ root, false, "" });
    }
};

/* The operator json_serialize_plan names when it refuses a plan it cannot serialize. */
bool serializable(duckdb::LogicalOperator &op, std::string &name)
{
    for (auto &child : op.children)
        if (!serializable(*child, name))
            return false;
    if (op.SupportSerialization())
        return true;
    name = duckdb::EnumUtil::ToString(op.type);
    return false;
}

/* A SELECT's parse tree, as json_serialize_sql writes it, through s (either serializer; the
 * caller finishes it); any other statement is refused with json_serialize_sql's own words. */
template <class S> void serialize_parse_tree(const duckdb::SQLStatement &statement, S &s)
{
    if (statement.type != duckdb::StatementType::SELECT_STATEMENT)
        throw duckdb::NotImplementedException("Only SELECT statements can be serialized to json!");
    statement.Cast<duckdb::SelectStatement>().Serialize(s);
}

/* What json_serialize_plan does to a planned statement before writing it (not optimized): its
 * column bindings resolved by resolver and its types set in place, so the plan is spent for the
 * optimizer unless resolver can undo it (undoable_resolver); its refusal of an operator it
 * cannot serialize. */
void resolve_for_serialize(duckdb::LogicalOperator &plan, duckdb::ColumnBindingResolver &resolver)
{
    resolver.Verify(plan);
    resolver.VisitOperator(plan);
    plan.ResolveOperatorTypes();
    std::string name;
    if (!serializable(plan, name))
        throw duckdb::InvalidInputException("Operator '%s' does not support serialization", name);
}

/* A planned statement's plan as json_serialize_plan writes it, as jansson values (and text). */
void serialize_plan(duckdb::LogicalOperator &plan, json_t *out, std::string *text)
{
    jansson_serializer s(out, text);
    duckdb::ColumnBindingResolver resolver;
    resolve_for_serialize(plan, resolver);
    plan.Serialize(s);
    s.finish();
}

/* One statement's tree: the parse tree (a SELECT only, as json_serialize_sql) or the plan,
 * planned and resolved as json_serialize_plan does (not optimized). */
void serialize_statement(duckdb::ClientContext &context,
                         duckdb::unique_ptr<duckdb::SQLStatement> statement,
                         sluice_bind_tree which,
                         json_t *out,
                         std::string *text)
{
    if (which == SLUICE_BIND_PARSE_TREE) {
        jansson_serializer s(out, text);
        serialize_parse_tree(*statement, s);
        s.finish();
        return;
    }
    duckdb::Planner planner(context);
    planner.CreatePlan(std::move(statement));
    auto plan = std::move(planner.plan);
    serialize_plan(*plan, out, text);
}

json_t *fresh(json_t *v)
{
    if (v == nullptr)
        throw plan_fail{ SLUICE_E_NOMEM };
    return v;
}

void set(json_t *obj, const char *key, json_t *v, std::string &text, bool first)
{
    if (json_object_set_new(obj, key, fresh(v)) != 0)
        throw plan_fail{ SLUICE_E_NOMEM };
    if (!first)
        text += ',';
    yyjson_string(text, key, std::strlen(key));
    text += ':';
}

/* DuckDB's refusal as json_serialize_* writes it, into doc (emptied first): {"error": true,
 * "error_type", "error_message", extra info}. */
void refusal_document(const std::exception &ex, json_t *doc, std::string &text)
{
    json_object_clear(doc);
    text.clear();
    duckdb::ErrorData error(ex);
    set(doc, "error", json_true(), text, true);
    text += "true";
    std::string type = duckdb::Exception::ExceptionTypeToString(error.Type());
    for (auto &c : type)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::pair<std::string, std::string> head[] = { { "error_type", type },
                                                         { "error_message", error.RawMessage() } };
    for (auto &kv : head) {
        set(doc, kv.first.c_str(), json_stringn(kv.second.data(), kv.second.size()), text, false);
        yyjson_string(text, kv.second.data(), kv.second.size());
    }
    for (auto &kv : error.ExtraInfo()) {
        set(doc, kv.first.c_str(), json_stringn(kv.second.data(), kv.second.size()), text, false);
        yyjson_string(text, kv.second.data(), kv.second.size());
    }
    text = "{" + text + "}";
}

/* The document json_serialize_* returns for n statements, each written by one(i, value, text):
 * {"error": false, "statements"|"plans": [...]}, or the refusal of the first that throws. */
template <typename One>
void list_document(const char *key, size_t n, One one, json_t *doc, std::string &text)
{
    try {
        std::string items;
        if (json_object_set_new(doc, "error", json_false()) != 0)
            throw plan_fail{ SLUICE_E_NOMEM };
        /* set_new takes the list even when it fails (it is released then) */
        json_t *list = fresh(json_array());
        if (json_object_set_new(doc, key, list) != 0)
            throw plan_fail{ SLUICE_E_NOMEM };
        for (size_t i = 0; i < n; i++) {
            json_t *item = fresh(json_object());
            if (json_array_append_new(list, item) != 0)
                throw plan_fail{ SLUICE_E_NOMEM };
            if (i > 0)
                items += ',';
            one(i, item, &items);
        }
        text = std::string("{\"error\":false,\"") + key + "\":[" + items + "]}";
    } catch (std::exception &ex) { /* plan_fail is not one: it leaves */
        refusal_document(ex, doc, text);
    }
}

/* The document json_serialize_* returns for sql: {"error": false, "statements"|"plans": [...]}
 * or DuckDB's refusal {"error": true, "error_type", "error_message", extra info}. */
void serialize_document(duckdb::ClientContext &context,
                        const char *sql,
                        sluice_bind_tree which,
                        json_t *doc,
                        std::string &text)
{
    duckdb::Parser parser;
    try {
        parser.ParseQuery(sql);
    } catch (std::exception &ex) {
        refusal_document(ex, doc, text);
        return;
    }
    list_document(
        which == SLUICE_BIND_PARSE_TREE ? "statements" : "plans", parser.statements.size(),
        [&](size_t i, json_t *one, std::string *items) {
            serialize_statement(context, std::move(parser.statements[i]), which, one, items);
        },
        doc, text);
}

void json_decref_cleanup(void *p)
{
    json_decref(static_cast<json_t *>(p));
}

/* Whether op's ParamsToString prints its own estimated_cardinality, unconditionally and as its
 * last entry (so nothing it printed before can stand in its place): PhysicalOperator::
 * SetEstimatedCardinality(result, estimated_cardinality), "%llu", which EXPLAIN's render tree
 * spells "Estimated Cardinality". Read from DuckDB 1.4.4's source (src/execution/operator): each
 * class below ends its ParamsToString so (the comparison joins inherit PhysicalComparisonJoin's),
 * and DuckDB constructs each type listed in that one class only; the exact class is checked too,
 * so an operator of another class under a listed type is never taken for one. Every other
 * operator prints nothing (LIMIT, ORDER_BY, TOP_N, CROSS_PRODUCT, the windows, the other
 * aggregates, BLOCKWISE_NL_JOIN, ...) or another operator's figure (a delim join prints its
 * join's): those, and whatever this list does not know, go through ParamsToString as EXPLAIN
 * does. test_exec_duckdb_bind_tree compares every figure with EXPLAIN's, operator by operator. */
bool prints_own_estimate(const duckdb::PhysicalOperator &op)
{
    using T = duckdb::PhysicalOperatorType;
    const std::type_info &cls = typeid(op);
    switch (op.type) {
    case T::PROJECTION:
        return cls == typeid(duckdb::PhysicalProjection);
    case T::FILTER:
        return cls == typeid(duckdb::PhysicalFilter);
    case T::TABLE_SCAN:
        return cls == typeid(duckdb::PhysicalTableScan);
    case T::HASH_GROUP_BY:
        return cls == typeid(duckdb::PhysicalHashAggregate);
    case T::HASH_JOIN:
        return cls == typeid(duckdb::PhysicalHashJoin);
    case T::NESTED_LOOP_JOIN:
        return cls == typeid(duckdb::PhysicalNestedLoopJoin);
    case T::PIECEWISE_MERGE_JOIN:
        return cls == typeid(duckdb::PhysicalPiecewiseMergeJoin);
    case T::IE_JOIN:
        return cls == typeid(duckdb::PhysicalIEJoin);
    case T::ASOF_JOIN:
        return cls == typeid(duckdb::PhysicalAsOfJoin);
    case T::COLUMN_DATA_SCAN:
    case T::DELIM_SCAN:
    case T::CTE_SCAN:
    case T::RECURSIVE_CTE_SCAN:
    case T::RECURSIVE_RECURRING_CTE_SCAN:
        return cls == typeid(duckdb::PhysicalColumnDataScan);
    case T::CTE:
        return cls == typeid(duckdb::PhysicalCTE);
    case T::RECURSIVE_CTE:
        return cls == typeid(duckdb::PhysicalRecursiveCTE);
    case T::INOUT_FUNCTION:
        return cls == typeid(duckdb::PhysicalTableInOutFunction);
    default:
        return false;
    }
}

/* Whether op's ParamsToString never prints an estimated cardinality, whatever the operator holds:
 * PhysicalTopN's prints its limit, offset and orders, PhysicalWindow's its projections (DuckDB
 * 1.4.4's src/execution/operator), so EXPLAIN shows these with no figure; the exact class is
 * checked as in prints_own_estimate. Their ParamsToString renders every expression they hold
 * only for that absent figure. test_exec_duckdb_bind_tree compares each with EXPLAIN's. */
bool prints_no_estimate(const duckdb::PhysicalOperator &op)
{
    using T = duckdb::PhysicalOperatorType;
    const std::type_info &cls = typeid(op);
    switch (op.type) {
    case T::TOP_N:
        return cls == typeid(duckdb::PhysicalTopN);
    case T::WINDOW:
        return cls == typeid(duckdb::PhysicalWindow);
    default:
        return false;
    }
}

/* A jansson document released when the scope that built it ends, by an exception or not: the
 * plan's refusals are built as jansson values, then copied into the arena tree. */
struct json_hold {
    json_t *v;
    explicit json_hold(json_t *p) : v(fresh(p))
    {
    }
    json_hold(const json_hold &) = delete;
    json_hold &operator=(const json_hold &) = delete;
    ~json_hold()
    {
        json_decref(v);
    }
};

/* The arena tree of a jansson document (a refusal, or json_serialize_plan's value on a rare
 * route); plan_fail{SLUICE_E_INTERNAL} when it nests past what the tree copies. */
sluice_tree *tree_of(sluice_arena *arena, const json_t *doc)
{
    sluice_tree *t = nullptr;
    sluice_status st = sluice_tree_from_json(arena, doc, &t);
    if (st != SLUICE_OK)
        throw plan_fail{ st == SLUICE_E_NOMEM ? SLUICE_E_NOMEM : SLUICE_E_INTERNAL };
    return t;
}

sluice_tree *tree_made(sluice_tree *v)
{
    if (v == nullptr)
        throw plan_fail{ SLUICE_E_NOMEM };
    return v;
}

void tree_set(sluice_arena *arena, sluice_tree *obj, const char *key, sluice_tree *v)
{
    if (sluice_tree_set(arena, obj, key, tree_made(v)) != SLUICE_OK)
        throw plan_fail{ SLUICE_E_NOMEM };
}

/* json_serialize_*'s value of one statement as an arena tree: {"error": false, key: [one]},
 * one written by write(tree_serializer &), or DuckDB's refusal (list_document's, as a tree);
 * and, when text is given, its text as DuckDB writes it into *text, less the integer members
 * named text_without when that is given. */
template <typename Write>
sluice_tree *tree_document(
    const char *key, Write write, sluice_arena *arena, std::string *text, const char *text_without)
{
    try {
        sluice_tree *doc = tree_made(sluice_tree_object(arena));
        tree_set(arena, doc, "error", sluice_tree_bool(arena, false));
        sluice_tree *list = tree_made(sluice_tree_array(arena));
        tree_set(arena, doc, key, list);
        sluice_tree *one = tree_made(sluice_tree_object(arena));
        if (sluice_tree_append(arena, list, one) != SLUICE_OK)
            throw plan_fail{ SLUICE_E_NOMEM };
        if (text != nullptr) {
            text->clear();
            text->reserve(4096); /* most statements' text fits: no regrowth while writing */
            *text += "{\"error\":false,\"";
            *text += key;
            *text += "\":[";
        }
        tree_serializer s(arena, one, text, text_without);
        write(s);
        s.finish();
        if (text != nullptr)
            *text += "]}";
        return doc;
    } catch (std::exception &ex) { /* plan_fail is not one: it leaves */
        json_hold doc(json_object());
        std::string refusal;
        refusal_document(ex, doc.v, refusal);
        if (text != nullptr)
            *text = std::move(refusal);
        return tree_of(arena, doc.v);
    }
}

/* json_serialize_plan's value of one planned statement as the arena tree the walker reads. */
sluice_tree *plan_document(duckdb::LogicalOperator &plan,
                           duckdb::ColumnBindingResolver &resolver,
                           sluice_arena *arena)
{
    return tree_document(
        "plans",
        [&](tree_serializer &s) {
            resolve_for_serialize(plan, resolver);
            plan.Serialize(s);
        },
        arena, nullptr, nullptr);
}

/* op's "Estimated Cardinality" exactly as EXPLAIN prints it, in arena; nullptr where it prints
 * none. ParamsToString renders every parameter of the operator (expressions, filters,
 * projections: most of this tree's cost) for this one figure, so it is called only for the
 * operators prints_own_estimate does not vouch for. */
const char *estimate_text(const duckdb::PhysicalOperator &op, sluice_arena *arena)
{
    char *text = nullptr;
    if (prints_no_estimate(op))
        return nullptr;
    if (prints_own_estimate(op)) {
        char digits[24]; /* "%llu" of a 64-bit value: at most 20 */
        auto r = std::to_chars(digits, digits + sizeof(digits),
                               static_cast<unsigned long long>(op.estimated_cardinality));
        text = sluice_arena_strndup(arena, digits, static_cast<size_t>(r.ptr - digits));
    } else {
        auto params = op.ParamsToString();
        auto rows = params.find(duckdb::RenderTreeNode::ESTIMATED_CARDINALITY);
        if (rows == params.end())
            return nullptr;
        text = sluice_arena_strndup(arena, rows->second.data(), rows->second.size());
    }
    if (text == nullptr)
        throw plan_fail{ SLUICE_E_NOMEM };
    return text;
}

/* One physical operator into *out (arena's) as EXPLAIN (FORMAT JSON) prints it, keeping what
 * lang/sql/estimate.c reads: the name, the estimate and the children, from GetChildren as the
 * render tree takes them. Nesting past SLUICE_DUCKDB_PLAN_MAX_DEPTH throws plan_fail (no
 * estimate). */
void physical_tree(const duckdb::PhysicalOperator &op,
                   int depth,
                   sluice_arena *arena,
                   sluice_physical_op *out)
{
    translator::check_depth(depth);
    std::string name = op.GetName();
    if ((out->name = sluice_arena_strndup(arena, name.data(), name.size())) == nullptr)
        throw plan_fail{ SLUICE_E_NOMEM };
    out->estimated_cardinality = estimate_text(op, arena);
    auto children = op.GetChildren();
    if (children.empty())
        return;
    out->children = static_cast<sluice_physical_op *>(
        sluice_arena_calloc(arena, children.size(), sizeof(sluice_physical_op)));
    if (out->children == nullptr)
        throw plan_fail{ SLUICE_E_NOMEM };
    out->n_children = children.size();
    for (size_t i = 0; i < children.size(); i++)
        physical_tree(children[i].get(), depth + 1, arena, &out->children[i]);
}

/* The physical plan's tree in arena, for b->physical. Throws plan_fail. */
sluice_physical_op *physical_plan_of(const duckdb::PhysicalOperator &root, sluice_arena *arena)
{
    auto *top = static_cast<sluice_physical_op *>(
        sluice_arena_calloc(arena, 1, sizeof(sluice_physical_op)));
    if (top == nullptr)
        throw plan_fail{ SLUICE_E_NOMEM };
    physical_tree(root, 0, arena, top);
    return top;
}

/* json_serialize_plan's resolution of column bindings, undone when it goes out of scope: each
 * column reference ColumnBindingResolver replaces by a BoundReference is kept and put back, so
 * the walked plan is again exactly the planner's, for the optimizer, with no copy of it
 * (LogicalOperator::Copy serializes the plan and deserializes it, binding every function again:
 * 0.58M Ir of seed 003's validate). DuckDB 1.4.4's resolver changes nothing else in a plan but
 * its operators' types (ResolveOperatorTypes), computed from the same expressions; only an
 * extension operator resolves its own bindings (ResolveColumnBindings), which cannot be undone:
 * a plan holding one is copied (undoable). */
class undoable_resolver : public duckdb::ColumnBindingResolver
{
  public:
    ~undoable_resolver() override
    {
        for (auto &r : replaced)
            *r.first = std::move(r.second);
    }

    static bool undoable(const duckdb::LogicalOperator &op)
    {
        if (op.type == duckdb::LogicalOperatorType::LOGICAL_EXTENSION_OPERATOR)
            return false;
        for (auto &child : op.children)
            if (!undoable(*child))
                return false;
        return true;
    }

  protected:
    using duckdb::ColumnBindingResolver::VisitReplace;
    duckdb::unique_ptr<duckdb::Expression>
    VisitReplace(duckdb::BoundColumnRefExpression &expr,
                 duckdb::unique_ptr<duckdb::Expression> *slot) override
    {
        auto ref = ColumnBindingResolver::VisitReplace(expr, slot);
        if (ref) /* the caller moves ref into *slot: the reference itself is kept here */
            replaced.emplace_back(slot, std::move(*slot));
        return ref;
    }

  private:
    std::vector<
        std::pair<duckdb::unique_ptr<duckdb::Expression> *, duckdb::unique_ptr<duckdb::Expression>>>
        replaced;
};

/* What sluice_executor_bind_parse keeps for sluice_executor_bind_plan: the one statement, after
 * DuckDB's PRAGMA rewriting (what the C API's extract hands prepare). */
struct parsed_statement {
    duckdb::unique_ptr<duckdb::SQLStatement> statement;
    bool select; /* parsed as a SELECT: json_serialize_plan's value and the estimate apply */
};

void parsed_cleanup(void *p)
{
    delete static_cast<parsed_statement *>(p);
}

/* An error's text as the C API hands it out (duckdb_extract_statements_error,
 * duckdb_prepare_error): finalized by the context, JSON where the connection gives JSON errors,
 * else with DuckDB's "LINE n:" caret block for query. */
std::string
processed_error(duckdb::ClientContext &context, const std::exception &ex, const std::string &query)
{
    duckdb::ErrorData error(ex);
    context.ProcessError(error, query);
    return error.Message();
}

/* duckdb_extract_statements_error's text: the parser's error as the context processes it, then
 * thrown again and read back, as the C API's extract catches it. */
std::string
extract_error(duckdb::ClientContext &context, const std::exception &ex, const std::string &query)
{
    duckdb::ErrorData error(ex);
    context.ProcessError(error, query);
    try {
        error.Throw();
    } catch (std::exception &again) {
        return duckdb::ErrorData(again).Message();
    }
    return error.Message();
}

/* What the bind yields inside its transaction, copied into the arena after it. */
struct bind_yield {
    duckdb::vector<std::string> names;
    duckdb::vector<duckdb::LogicalType> types;
    std::vector<duckdb::LogicalType> param_types;
    bool plan_missing = false;                 /* DuckDB planned nothing (untyped parameters) */
    bool copy_failed = false;                  /* the plan for the optimizer could not be copied */
    sluice_status plan_status = SLUICE_OK;     /* of json_serialize_plan's value */
    sluice_status physical_status = SLUICE_OK; /* of the cardinalities */
};

/* The parameters' types as the planner inferred them, at the C API's numbering. */
void param_types_of(const duckdb::Planner &planner, const sluice_bound_statement *b, bind_yield &y)
{
    for (auto &kv : planner.value_map) {
        duckdb::idx_t at = 0;
        for (size_t i = 0; i < b->param_count; i++)
            if (b->param_names[i] != nullptr && kv.first == b->param_names[i])
                at = i + 1;
        if (at > 0)
            y.param_types[at - 1] = kv.second->return_type.id() != duckdb::LogicalTypeId::INVALID
                                        ? kv.second->return_type
                                        : kv.second->GetValue().type();
    }
}

/* Optimizes logical (a copy of the walked plan) as prepare does and plans it physically; with
 * want_physical, the operators and EXPLAIN's figures into b->physical. */
void optimize_and_plan(duckdb::ClientContext &context,
                       duckdb::Binder &binder,
                       duckdb::unique_ptr<duckdb::LogicalOperator> logical,
                       bool want_physical,
                       sluice_bound_statement *b,
                       bind_yield &y,
                       sluice_arena *arena)
{
    /* The estimate reads EXPLAIN's figures (issue 24), and EXPLAIN's plan differs from
     * prepare's in them: under its root (LogicalExplain, which estimates 3 rows without asking
     * its child) the optimizer's and the physical planner's last estimate passes never reach the
     * statement's operators, which keep their own figure (0 where none was made). So a read is
     * optimized under that root, as EXPLAIN does, and planned without the root pass; anything
     * else as prepare does. The refusals are the same either way (the same rules, the same
     * tree). */
    if (want_physical)
        logical = duckdb::make_uniq<duckdb::LogicalExplain>(
            std::move(logical), duckdb::ExplainType::EXPLAIN_STANDARD, duckdb::ExplainFormat::JSON);
    if (duckdb::ClientConfig::GetConfig(context).enable_optimizer && logical->RequireOptimizer()) {
        duckdb::Optimizer optimizer(binder, context);
        logical = optimizer.Optimize(std::move(logical));
    }
    if (want_physical) {
        if (logical->type != duckdb::LogicalOperatorType::LOGICAL_EXPLAIN ||
            logical->children.size() != 1)
            throw duckdb::InternalException("the optimizer replaced EXPLAIN's root");
        logical = std::move(logical->children[0]);
        logical->has_estimated_cardinality = true; /* as under EXPLAIN: no root pass */
    }
    duckdb::PhysicalPlanGenerator generator(context);
    auto physical = generator.Plan(std::move(logical));
    if (!want_physical)
        return;
    try {
        b->physical = physical_plan_of(physical->Root(), arena);
    } catch (plan_fail &f) {
        y.physical_status = f.status;
    }
}

/* Inside the bind's transaction: plan st once; the walker's plan (json_serialize_plan's value)
 * from it, and, as prepare does when every parameter has a type, the optimized physical plan
 * from a copy of it (the walker's is resolved in place and unfit for the optimizer). */
void plan_once(duckdb::ClientContext &context,
               duckdb::unique_ptr<duckdb::SQLStatement> st,
               bool select,
               bool want_physical,
               sluice_bound_statement *b,
               bind_yield &y,
               sluice_arena *arena)
{
    duckdb::Planner planner(context);
    planner.CreatePlan(std::move(st));
    y.names = planner.names;
    y.types = planner.types;
    param_types_of(planner, b, y);
    auto logical = std::move(planner.plan);
    bool optimize = planner.properties.bound_all_parameters && logical;
    std::string unserializable;
    if (select && !logical) {
        y.plan_missing = true;
    } else if (select && !serializable(*logical, unserializable)) {
        /* json_serialize_plan refuses it; checked before anything resolves the plan, which then
         * goes to the optimizer whole */
        std::string t;
        json_hold doc(json_object());
        list_document(
            "plans", 1,
            [&](size_t, json_t *, std::string *) {
                duckdb::ColumnBindingResolver().Verify(*logical);
                throw duckdb::InvalidInputException("Operator '%s' does not support serialization",
                                                    unserializable);
            },
            doc.v, t);
        b->plan = tree_of(arena, doc.v);
    } else if (select) {
        /* the walker reads the plan itself, exactly as planned; the optimizer gets it back
         * unresolved, or a copy */
        duckdb::unique_ptr<duckdb::LogicalOperator> walked = std::move(logical);
        bool undo = optimize && undoable_resolver::undoable(*walked);
        if (optimize && !undo) {
            try {
                logical = walked->Copy(context);
            } catch (std::exception &) {
                y.copy_failed = true; /* the caller prepares once more, as before */
                optimize = false;
            }
        }
        try {
            undoable_resolver undone; /* undone on leaving this block */
            duckdb::ColumnBindingResolver spent;
            b->plan = plan_document(
                *walked, undo ? static_cast<duckdb::ColumnBindingResolver &>(undone) : spent,
                arena);
        } catch (plan_fail &f) {
            y.plan_status = f.status;
        }
        if (undo)
            logical = std::move(walked);
    }
    if (optimize)
        optimize_and_plan(context, *planner.binder, std::move(logical), want_physical, b, y, arena);
}

} // namespace

extern "C" sluice_status sluice_exec_duckdb_plan_harden(duckdb_connection conn,
                                                        const char *directory,
                                                        bool json_errors,
                                                        sluice_arena *arena,
                                                        sluice_error *err)
{
    if (conn == nullptr || directory == nullptr)
        return sluice_error_set(err, arena, SLUICE_E_INTERNAL,
                                "sluice_exec_duckdb_plan_harden: no connection or directory");
    try {
        /* The copy of the directory is this call's one allocation: the tests' sweep fails it. */
        if (sluice_arena_fault_point())
            throw std::bad_alloc();
        /* The fields themselves, not SET: lock_configuration already refuses a SET, which is
         * what it is for; this connection is new and no statement runs on it yet. */
        auto &context = context_of(conn);
        auto &config = duckdb::ClientConfig::GetConfig(context);
        config.home_directory = directory;
        config.errors_as_json = json_errors;
        /* secret_directory is the database's: 1.4.4 drops the value given before the open
         * (its secret manager resets it when the database starts). The first connection — the
         * one that reads the hardening back, before any statement of a caller — sets it; DuckDB
         * refuses a change once a secret was used, so later ones only compare (and a database
         * whose secrets moved elsewhere refuses every connection). */
        auto &secrets = duckdb::SecretManager::Get(context);
        if (secrets.PersistentSecretPath() != directory)
            secrets.SetPersistentSecretPath(directory);
    } catch (std::bad_alloc &) {
        return sluice_error_set(err, arena, SLUICE_E_NOMEM,
                                "out of memory hardening a DuckDB connection");
    } catch (std::exception &e) {
        return sluice_error_set(err, arena, SLUICE_E_ENGINE,
                                "DuckDB refused the connection's hardening: %s", e.what());
    }
    return SLUICE_OK;
}

namespace
{

/* What a process function runs once its database was sealed: a refusal naming it. */
template <size_t I>
void refuse_process_function(duckdb::ClientContext &,
                             duckdb::TableFunctionInput &,
                             duckdb::DataChunk &)
{
    throw duckdb::PermissionException(std::string(sluice_duckdb_process_functions[I]) +
                                      "() is not allowed: it changes the server process, not data");
}

constexpr duckdb::table_function_t process_refusals[] = {
    refuse_process_function<0>,
    refuse_process_function<1>,
    refuse_process_function<2>,
};
static_assert(sizeof(process_refusals) / sizeof(process_refusals[0]) ==
                  SLUICE_DUCKDB_PROCESS_FUNCTIONS,
              "one refusal per process function");

} // namespace

extern "C" sluice_status
sluice_exec_duckdb_plan_seal(duckdb_connection conn, sluice_arena *arena, sluice_error *err)
{
    if (conn == nullptr)
        return sluice_error_set(err, arena, SLUICE_E_INTERNAL,
                                "sluice_exec_duckdb_plan_seal: no connection");
    try {
        auto &db = duckdb::DatabaseInstance::GetDatabase(context_of(conn));
        auto transaction = duckdb::CatalogTransaction::GetSystemTransaction(db);
        auto &schema = duckdb::Catalog::GetSystemCatalog(db).GetSchema(transaction, DEFAULT_SCHEMA);
        for (size_t i = 0; i < SLUICE_DUCKDB_PROCESS_FUNCTIONS; i++) {
            auto entry = schema.GetEntry(transaction, duckdb::CatalogType::TABLE_FUNCTION_ENTRY,
                                         sluice_duckdb_process_functions[i]);
            if (!entry)
                continue; /* this DuckDB has no such function: nothing to run */
            /* the binder copies a function out of this set, so every later bind gets the refusal */
            for (auto &f : entry->Cast<duckdb::TableFunctionCatalogEntry>().functions.functions)
                f.function = process_refusals[i];
        }
    } catch (std::bad_alloc &) {
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory sealing DuckDB");
    } catch (std::exception &e) {
        return sluice_error_set(err, arena, SLUICE_E_ENGINE,
                                "DuckDB refused sluice's seal of its process functions: %s",
                                e.what());
    }
    return SLUICE_OK;
}

extern "C" bool sluice_exec_duckdb_plan_as_new(duckdb_connection conn)
{
    if (conn == nullptr)
        return false;
    auto &context = context_of(conn);
    return context.transaction.IsAutoCommit() && !context.transaction.HasActiveTransaction() &&
           !context.interrupted && context.client_data->prepared_statements.empty();
}

extern "C" sluice_status sluice_exec_duckdb_plan_bind(duckdb_connection conn,
                                                      const char *sql,
                                                      const duckdb_value *params,
                                                      size_t n_params,
                                                      sluice_arena *arena,
                                                      sluice_duckdb_plan **out,
                                                      sluice_error *err)
{
    if (conn == nullptr || sql == nullptr || (n_params > 0 && params == nullptr))
        return sluice_error_set(err, arena, SLUICE_E_INTERNAL,
                                "sluice_exec_duckdb_plan_bind: no connection or statement");
    auto *plan = static_cast<sluice_duckdb_plan *>(
        sluice_arena_calloc(arena, 1, sizeof(sluice_duckdb_plan)));
    if (plan == nullptr)
        return SLUICE_E_NOMEM;
    translator t{ arena, plan };
    try {
        auto &context = context_of(conn);
        auto statements = context.ParseStatements(sql);
        if (statements.size() != 1)
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "expected exactly one SQL statement, found %zu",
                                    statements.size());
        plan->statement = duckdb::EnumUtil::ToChars(statements[0]->type);
        /* As json_serialize_plan builds the plan lang/sql's walker reads: planned, not
         * optimized, bindings resolved, in a transaction of its own. The translation runs after
         * it, so only DuckDB's own exceptions cross RunFunctionInTransaction's rollback. */
        duckdb::unique_ptr<duckdb::LogicalOperator> root;
        duckdb::vector<std::string> names;
        duckdb::vector<duckdb::LogicalType> types;
        context.RunFunctionInTransaction([&]() {
            duckdb::Planner planner(context);
            for (size_t i = 0; i < n_params; i++)
                planner.parameter_data.emplace(
                    std::to_string(i + 1),
                    duckdb::BoundParameterData(*reinterpret_cast<duckdb::Value *>(params[i])));
            planner.CreatePlan(std::move(statements[0]));
            duckdb::ColumnBindingResolver resolver;
            resolver.VisitOperator(*planner.plan);
            planner.plan->ResolveOperatorTypes();
            plan->n_params = planner.properties.parameter_count;
            root = std::move(planner.plan);
            names = std::move(planner.names);
            types = std::move(planner.types);
        });
        plan->n_columns = names.size() < types.size() ? names.size() : types.size();
        plan->names = t.array<const char>(plan->n_columns);
        plan->types = t.array<const char>(plan->n_columns);
        for (size_t i = 0; i < plan->n_columns; i++) {
            plan->names[i] = t.dup(names[i]);
            plan->types[i] = t.dup(types[i].ToString());
        }
        plan->root = t.op(*root, 0);
    } catch (plan_fail &f) {
        return limit_error(f.status, arena, err);
    } catch (std::bad_alloc &) {
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory binding the statement");
    } catch (std::exception &e) {
        return engine_error(e, arena, err);
    }
    *out = plan;
    return SLUICE_OK;
}

extern "C" sluice_status sluice_executor_bind_tree(void *conn,
                                                   const char *sql,
                                                   sluice_bind_tree which,
                                                   sluice_arena *arena,
                                                   json_t **out,
                                                   const char **raw,
                                                   sluice_error *err)
{
    if (conn == nullptr || sql == nullptr || out == nullptr ||
        (which != SLUICE_BIND_PARSE_TREE && which != SLUICE_BIND_PLAN))
        return sluice_error_set(err, arena, SLUICE_E_INTERNAL,
                                "sluice_executor_bind_tree: no connection or statement");
    *out = nullptr;
    /* The query would have refused to bind text that is not UTF-8 (its VARCHAR parameter): the
     * caller runs it and reports exactly that, so both routes say the same. */
    if (!duckdb::Utf8Proc::IsValid(sql, std::strlen(sql)))
        return SLUICE_E_UNSUPPORTED;
    json_t *doc = json_object();
    if (doc == nullptr || sluice_arena_cleanup_add(arena, json_decref_cleanup, doc) != SLUICE_OK)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory serializing the SQL");
    std::string text;
    sluice_status st = SLUICE_OK;
    try {
        auto &context = context_of(static_cast<duckdb_connection>(conn));
        if (which == SLUICE_BIND_PARSE_TREE)
            serialize_document(context, sql, which, doc, text);
        else
            /* json_serialize_plan plans inside its query's transaction: one of our own here */
            context.RunFunctionInTransaction([&]() {
                try {
                    serialize_document(context, sql, which, doc, text);
                } catch (plan_fail &f) {
                    st = f.status;
                }
            });
    } catch (plan_fail &f) {
        st = f.status;
    } catch (std::bad_alloc &) {
        st = SLUICE_E_NOMEM;
    } catch (std::exception &e) {
        return engine_error(e, arena, err);
    }
    if (st == SLUICE_E_INTERNAL)
        return sluice_error_set(err, arena, st,
                                "DuckDB's tree holds a value JSON cannot (NaN, infinity, a NUL or "
                                "invalid UTF-8)");
    if (st != SLUICE_OK)
        return sluice_error_set(err, arena, st, "out of memory serializing the SQL");
    if (raw != nullptr && (*raw = sluice_arena_strndup(arena, text.data(), text.size())) == nullptr)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory serializing the SQL");
    *out = doc;
    return SLUICE_OK;
}

extern "C" const char *sluice_exec_duckdb_plan_statement_type(duckdb_prepared_statement ps)
{
    /* In this release a duckdb_prepared_statement is a PreparedStatementWrapper * (capi). */
    auto *wrapper = reinterpret_cast<duckdb::PreparedStatementWrapper *>(ps);
    if (wrapper == nullptr || !wrapper->statement || wrapper->statement->HasError())
        return nullptr;
    return duckdb::EnumUtil::ToChars(wrapper->statement->GetStatementType());
}

namespace
{

/* Thrown when an operator runs a table function whose name cannot be read. */
struct unreadable_function {
};

/* The first table function op's subtree scans that match names (see
 * sluice_exec_duckdb_plan_find_function); throws plan_fail past the depth limit,
 * unreadable_function, std::bad_alloc. */
const char *
find_function(const duckdb::PhysicalOperator &op, sluice_duckdb_function_match match, int depth)
{
    translator::check_depth(depth);
    /* GetChildren's vector is this operator's allocation: the tests' sweep fails it */
    if (sluice_arena_fault_point())
        throw std::bad_alloc();
    if (op.type == duckdb::PhysicalOperatorType::TABLE_SCAN) {
        if (typeid(op) != typeid(duckdb::PhysicalTableScan))
            throw unreadable_function{};
        const char *hit = match(op.Cast<duckdb::PhysicalTableScan>().function.name.c_str());
        if (hit != nullptr)
            return hit;
    } else if (op.type == duckdb::PhysicalOperatorType::INOUT_FUNCTION) {
        throw unreadable_function{}; /* its function is a private member in 1.4.4 */
    }
    for (auto &child : op.GetChildren()) {
        const char *hit = find_function(child.get(), match, depth + 1);
        if (hit != nullptr)
            return hit;
    }
    return nullptr;
}

} // namespace

extern "C" sluice_status sluice_exec_duckdb_plan_find_function(duckdb_prepared_statement ps,
                                                               sluice_duckdb_function_match match,
                                                               const char **hit)
{
    /* In this release a duckdb_prepared_statement is a PreparedStatementWrapper * (capi). */
    auto *wrapper = reinterpret_cast<duckdb::PreparedStatementWrapper *>(ps);
    if (wrapper == nullptr || match == nullptr || hit == nullptr || !wrapper->statement ||
        wrapper->statement->HasError() || !wrapper->statement->data)
        return SLUICE_E_UNSUPPORTED;
    auto &data = *wrapper->statement->data;
    /* With parameters, DuckDB plans again at execution when their values' types differ. */
    if (data.properties.parameter_count > 0 || !data.properties.bound_all_parameters ||
        !data.physical_plan)
        return SLUICE_E_UNSUPPORTED;
    try {
        *hit = find_function(data.physical_plan->Root(), match, 0);
    } catch (plan_fail &f) {
        return f.status;
    } catch (unreadable_function &) {
        return SLUICE_E_UNSUPPORTED;
    } catch (std::bad_alloc &) {
        return SLUICE_E_NOMEM;
    }
    return SLUICE_OK;
}

namespace
{

/* json_serialize_sql's value of the one statement, as written (before PRAGMA rewriting, which
 * json_serialize_sql does not do either), into b, with its text less the source positions (the
 * canonical form's body); whether it is a SELECT. */
bool single_parse_tree(translator &t, duckdb::SQLStatement &statement, sluice_bound_statement *b)
{
    std::string text;
    try {
        b->parse_tree = tree_document(
            "statements", [&](tree_serializer &s) { serialize_parse_tree(statement, s); }, t.arena,
            &text, "query_location");
        b->parse_tree_text = t.dup(text);
    } catch (plan_fail &f) {
        if (f.status != SLUICE_E_INTERNAL)
            throw;
        /* a value JSON cannot hold: parse_tree stays NULL, the caller fails closed */
    }
    return statement.type == duckdb::StatementType::SELECT_STATEMENT;
}

/* The parsed statement kept for sluice_executor_bind_plan, released with arena. */
void hold_statement(sluice_arena *arena,
                    duckdb::unique_ptr<duckdb::SQLStatement> statement,
                    bool select,
                    sluice_bound_statement *b)
{
    if (sluice_arena_fault_point())
        throw std::bad_alloc(); /* the holder below: the tests' sweep fails it */
    auto *held = new parsed_statement{ std::move(statement), select };
    if (sluice_arena_cleanup_add(arena, parsed_cleanup, held) != SLUICE_OK)
        throw plan_fail{ SLUICE_E_NOMEM }; /* the cleanup ran: held is gone */
    b->parsed = held;
}

/* A connection's parser options, read once per connection (DuckDB's registered state: a cache
 * that lives as long as the ClientContext): GetParserOptions looks two settings up by name on
 * every call, 35k instructions, as much as parsing the 1,000-row statement's text. What it reads
 * cannot change while the connection lives: preserve_identifier_case and integer_division change
 * only by a SET, which never runs on an analyzer's connection (duckdb_connect.c) and which the
 * executor's database refuses anyway (lock_configuration); max_expression_depth is the
 * connection's own configuration, never set; and the parser extensions are read through a
 * pointer to the database's list, as GetParserOptions gives it. */
struct parser_options_state final : duckdb::ClientContextState {
    explicit parser_options_state(const duckdb::ParserOptions &o) : options(o)
    {
    }
    const duckdb::ParserOptions options;
};

duckdb::ParserOptions parser_options(duckdb::ClientContext &context)
{
    static const std::string key = "sluice_parser_options";
    auto &states = *context.registered_state;
    auto kept = states.Get<parser_options_state>(key);
    if (kept)
        return kept->options;
    auto options = context.GetParserOptions();
    states.Insert(key, duckdb::make_shared_ptr<parser_options_state>(options));
    return options;
}

} // namespace

extern "C" sluice_status sluice_executor_bind_parse(void *conn,
                                                    const char *sql,
                                                    sluice_arena *arena,
                                                    sluice_bound_statement **out,
                                                    sluice_error *err)
{
    if (conn == nullptr || sql == nullptr || out == nullptr)
        return sluice_error_set(err, arena, SLUICE_E_INTERNAL,
                                "sluice_executor_bind_parse: no connection or statement");
    /* As sluice_executor_bind_tree: the C API route says what DuckDB's VARCHAR says of it. */
    if (!duckdb::Utf8Proc::IsValid(sql, std::strlen(sql)))
        return SLUICE_E_UNSUPPORTED;
    auto *b = static_cast<sluice_bound_statement *>(
        sluice_arena_calloc(arena, 1, sizeof(sluice_bound_statement)));
    if (b == nullptr)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory parsing the SQL");
    translator t{ arena, nullptr };
    try {
        auto &context = context_of(static_cast<duckdb_connection>(conn));
        duckdb::Parser parser(parser_options(context));
        try {
            parser.ParseQuery(sql);
        } catch (std::exception &ex) {
            /* extract's error, and json_serialize_sql's value (the same parser's refusal) */
            b->parse_error = t.dup(extract_error(context, ex, sql));
            json_hold doc(json_object());
            std::string text;
            refusal_document(ex, doc.v, text);
            b->parse_tree = tree_of(arena, doc.v);
            b->parse_tree_text = t.dup(text);
            *out = b;
            return SLUICE_OK;
        }
        bool select =
            parser.statements.size() == 1 && single_parse_tree(t, *parser.statements[0], b);
        try {
            context.HandlePragmaStatements(parser.statements);
        } catch (std::exception &ex) {
            /* extract fails as a whole when a PRAGMA cannot be rewritten */
            b->parse_error = t.dup(extract_error(context, ex, sql));
            *out = b;
            return SLUICE_OK;
        }
        b->statement_count = parser.statements.size();
        if (b->statement_count == 1)
            hold_statement(arena, std::move(parser.statements[0]), select, b);
    } catch (plan_fail &) { /* a value JSON cannot hold is caught above: only memory is left */
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory parsing the SQL");
    } catch (std::bad_alloc &) {
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory parsing the SQL");
    } catch (std::exception &e) {
        return engine_error(e, arena, err);
    }
    *out = b;
    return SLUICE_OK;
}

namespace
{

/* The bind's fields, from what the transaction yielded, into the arena. */
void fill_bind(translator &t, sluice_bound_statement *b, const bind_yield &y)
{
    b->column_count = y.names.size() < y.types.size() ? y.names.size() : y.types.size();
    b->column_names = t.array<const char>(b->column_count);
    b->column_types = static_cast<int *>(
        b->column_count > 0 ? sluice_arena_calloc(t.arena, b->column_count, sizeof(int)) : nullptr);
    if (b->column_count > 0 && b->column_types == nullptr)
        throw plan_fail{ SLUICE_E_NOMEM };
    for (size_t i = 0; i < b->column_count; i++) {
        b->column_names[i] = t.dup(y.names[i]);
        b->column_types[i] = static_cast<int>(duckdb::LogicalTypeIdToC(y.types[i].id()));
    }
    for (size_t i = 0; i < b->param_count; i++)
        b->param_types[i] = static_cast<int>(duckdb::LogicalTypeIdToC(y.param_types[i].id()));
}

/* When the plan for the optimizer could not be copied: DuckDB prepares the statement's text
 * once more, for the refusals only its optimizer makes and the physical plan. */
void prepare_again(duckdb::ClientContext &context,
                   const std::string &query,
                   bool want_physical,
                   translator &t,
                   sluice_bound_statement *b)
{
    auto prepared = context.Prepare(query);
    if (prepared->HasError()) {
        b->bind_error = t.dup(prepared->GetError());
        return;
    }
    if (!want_physical || !prepared->data->physical_plan)
        return;
    try {
        b->physical = physical_plan_of(prepared->data->physical_plan->Root(), t.arena);
    } catch (plan_fail &f) {
        if (f.status == SLUICE_E_NOMEM)
            throw;
    }
}

/* The parameters as the C API numbers them ($1.. and named ones: their index). */
void name_params(translator &t,
                 const duckdb::SQLStatement &statement,
                 sluice_bound_statement *b,
                 bind_yield &y)
{
    b->param_count = statement.named_param_map.size();
    b->param_names = t.array<const char>(b->param_count);
    b->param_types = static_cast<int *>(
        b->param_count > 0 ? sluice_arena_calloc(t.arena, b->param_count, sizeof(int)) : nullptr);
    if (b->param_count > 0 && b->param_types == nullptr)
        throw plan_fail{ SLUICE_E_NOMEM };
    for (auto &kv : statement.named_param_map)
        if (kv.second >= 1 && kv.second <= b->param_count)
            b->param_names[kv.second - 1] = t.dup(kv.first);
    y.param_types.assign(b->param_count, duckdb::LogicalType(duckdb::LogicalTypeId::INVALID));
}

/* DuckDB planned nothing (parameters it cannot type): json_serialize_plan's own refusal, from
 * its own parse and plan, into b->plan. */
void plan_refusal(duckdb::ClientContext &context,
                  const std::string &query,
                  sluice_bound_statement *b,
                  bind_yield &y,
                  sluice_arena *arena)
{
    std::string text;
    json_hold doc(json_object());
    try {
        context.RunFunctionInTransaction([&]() {
            try {
                serialize_document(context, query.c_str(), SLUICE_BIND_PLAN, doc.v, text);
            } catch (plan_fail &f) {
                y.plan_status = f.status;
            }
        });
    } catch (std::exception &ex) {
        refusal_document(ex, doc.v, text);
    }
    try {
        if (y.plan_status == SLUICE_OK)
            b->plan = tree_of(arena, doc.v);
    } catch (plan_fail &f) {
        y.plan_status = f.status;
    }
    if (y.plan_status == SLUICE_E_NOMEM)
        throw plan_fail{ SLUICE_E_NOMEM };
    if (y.plan_status != SLUICE_OK) {
        b->plan = nullptr;
        b->plan_unholdable = true;
    }
}

} // namespace

extern "C" sluice_status sluice_executor_bind_plan(void *conn,
                                                   sluice_bound_statement *b,
                                                   sluice_arena *arena,
                                                   sluice_error *err)
{
    auto *held = b != nullptr ? static_cast<parsed_statement *>(b->parsed) : nullptr;
    if (conn == nullptr || held == nullptr || !held->statement || b->statement_count != 1)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "sluice_executor_bind_plan: no parsed statement to bind");
    auto statement = std::move(held->statement);
    bool select = held->select;
    auto &context = context_of(static_cast<duckdb_connection>(conn));
    translator t{ arena, nullptr };
    std::string query;
    bind_yield y;
    try {
        query = statement->query;
        b->planned = true;
        b->statement_type = static_cast<int>(duckdb::StatementTypeToC(statement->type));
        b->statement_name = duckdb::EnumUtil::ToChars(statement->type);
        name_params(t, *statement, b, y);
        bool want_physical = select && b->param_count == 0;
        try {
            context.RunFunctionInTransaction(
                [&]() {
                    /* ours never crosses DuckDB's rollback (it is no std::exception) */
                    try {
                        plan_once(context, std::move(statement), select, want_physical, b, y,
                                  arena);
                    } catch (plan_fail &f) {
                        y.plan_status = f.status == SLUICE_E_INTERNAL ? f.status : SLUICE_E_NOMEM;
                    }
                },
                false);
        } catch (std::bad_alloc &) {
            throw;
        } catch (std::exception &ex) {
            /* DuckDB refused: prepare's error, word for word */
            b->bind_error = t.dup(processed_error(context, ex, query));
            b->plan = nullptr;
            b->physical = nullptr;
            return SLUICE_OK;
        }
        if (y.plan_status == SLUICE_E_NOMEM || y.physical_status == SLUICE_E_NOMEM)
            throw plan_fail{ SLUICE_E_NOMEM };
        fill_bind(t, b, y);
        if (y.plan_status != SLUICE_OK) {
            b->plan = nullptr; /* JSON cannot hold a value of it */
            b->plan_unholdable = true;
        }
        if (y.copy_failed)
            prepare_again(context, query, want_physical, t, b);
        if (y.plan_missing)
            plan_refusal(context, query, b, y, arena);
    } catch (plan_fail &) {
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory binding the SQL");
    } catch (std::bad_alloc &) {
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory binding the SQL");
    } catch (std::exception &e) {
        return engine_error(e, arena, err);
    }
    return SLUICE_OK;
}
