// Conformance queries over testdata/demo-vault. Each starts with a line
// "// == name"; optional "// params: {json}", "// timeout: 20ms" and
// "// max_rows: N" lines follow; the rest up to the next "// ==" is the
// query. Expected results are in golden/<name>.json, rewritten by
// go test ./snapshot/graphdb/ -run TestConformance -update.

// == issue_example
MATCH (p:Person)-[c:contributes]->(proj:Project) WHERE c.hours >= 100 RETURN p, c, proj

// == multi_label_and
MATCH (p:Person:Engineer) RETURN p.title, labels(p) ORDER BY p.title

// == multi_label_or
MATCH (n:Company|Lab) RETURN n.title, labels(n) ORDER BY n.title

// == label_in_where
MATCH (n) WHERE n:Person AND NOT n:Engineer RETURN n.title ORDER BY n.title

// == label_counts
MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS notes ORDER BY notes DESC, label

// == unknown_label_no_rows
MATCH (n:Spaceship) RETURN n

// == unknown_type_no_rows
MATCH (a)-[r:teleports_to]->(b) RETURN a, r, b

// == unknown_type_among_known
MATCH (a)-[r:teleports_to|funds]->(b) RETURN a.title, type(r), b.title ORDER BY a.title

// == unknown_property_is_null
MATCH (p:Person {title: 'Alice'}) RETURN p.title, p.shoe_size, p.shoe_size IS NULL AS missing

// == inline_map_unknown_key
MATCH (p:Person {shoe_size: 42}) RETURN p

// == alice_leads_search
MATCH (a {title: 'Alice'})-[:leads]->(p) RETURN p.title, labels(p)

// == funds_properties
MATCH (c:Company)-[f:funds]->(p:Project) RETURN c.title, f.amount, f.currency, p.title ORDER BY f.amount DESC

// == depends_on_critical
MATCH (s:Project {title: 'Search'})-[d:depends_on]->(x) RETURN x.title, d.critical ORDER BY x.title

// == negative_edge
MATCH (a)-[r:distrusts]->(b) RETURN a.title, type(r), r.sign, b.title

// == signed_trust
MATCH (a)-[r:trusts|distrusts]->(b) RETURN a.title, type(r), r.sign, b.title ORDER BY r.sign

// == type_with_space
MATCH (z)-[r:`mentored by`]->(m) RETURN z.title, type(r), m.title

// == keyword_type
MATCH (a)-[r:`match`]->(b) RETURN a.title, r.mentor, r.round, b.title

// == works_at_everyone
MATCH (p:Person)-[w:works_at]->(c:Company) RETURN p.title, c.title, w.role, w.since, w.origin ORDER BY p.title, c.title

// == pinned_edge_id
MATCH (a {title: 'Alice'})-[k:knows]->(b) RETURN id(k), k.since, b.title ORDER BY k.since

// == id_and_type_functions
MATCH (a {title: 'Bob'})-[r:contributes]->(p) RETURN id(a), id(r), type(r), id(p) ORDER BY id(p)

// == node_object
MATCH (b:Person {title: 'Bob'}) RETURN b

// == relationship_object
MATCH (:Company {title: 'Acme'})-[f:funds]->() RETURN f

// == properties_and_keys
MATCH (p:Project {title: 'Atlas'}) RETURN properties(p) AS props, keys(p) AS keys

// == map_projection
MATCH (p:Person) WHERE p.joined IS NOT NULL RETURN p {.title, .role, .joined, since: p.joined.year} AS person ORDER BY p.joined

// == map_projection_all
MATCH (p:Project {title: 'Atlas'}) RETURN p {.*} AS all, p {.*, .nosuch, title: 'renamed'} AS named

// == map_projection_all_edge
MATCH (a:Person)-[c:contributes]->(p:Project) RETURN a.title AS person, p.title AS project, c {.*} AS contribution ORDER BY person, project

// == map_projection_all_null
MATCH (a:Person {title: 'Alice'}) OPTIONAL MATCH (a)-[:funds]->(b:Spaceship) RETURN a.title AS title, b {.*} AS b

// == keys_of_properties
MATCH (p:Project) UNWIND keys(properties(p)) AS k RETURN p.title AS t, k ORDER BY t, k

// == keys_of_map_projection
MATCH (a:Person)-[c:contributes]->(p:Project) WITH a, p, c {.*, .nosuch} AS m UNWIND keys(m) AS k RETURN a.title AS person, p.title AS project, k, size(keys(m)) AS n ORDER BY person, project, k

// == keys_of_null_properties
MATCH (a:Person {title: 'Alice'}) OPTIONAL MATCH (a)-[:funds]->(b:Spaceship) RETURN keys(properties(b)) AS k, keys(b {.*}) AS m

// == compare_across_types
MATCH (n:Project) RETURN n.title AS t, n.title = 3 AS a, n.title <> 3 AS b, n.title < 3 AS c, n.budget = 'lots' AS d, n.active = 1 AS e, n.budget = '1200000' AS f, n.started = '2022-01-10' AS g, n.priority = 'high' AS h ORDER BY t

// == compare_date_with_number
MATCH (n:Project) RETURN n.title AS t, n.started > 2020 AS a, n.started = 5 AS b, n.started <> true AS c ORDER BY t

// == in_list_of_other_types
// params: {"ids": ["12"], "mixed": [1200000, "x", 3], "titles": ["Atlas", 3]}
MATCH (n:Project) RETURN n.title AS t, n.budget IN $ids AS a, n.budget IN $mixed AS b, n.title IN $titles AS c, 1 IN [1, 'a'] AS d, 'a' IN [1, 2] AS e ORDER BY t

// == number_in_string_list_property
// params: {"year": 2023}
MATCH (n:Project) RETURN n.title AS t, $year IN n.tags AS a, 3 IN n.tags AS b, 'project' IN n.tags AS c ORDER BY t

// == subscript_with_computed_key
MATCH (n {title: 'Atlas'}) RETURN [k IN keys(n) | n[k]] AS values

// == compare_list_parameter_with_string
// params: {"names": ["Atlas", "Search"]}
MATCH (n) WHERE n.title = $names OR n.title IN $names RETURN n.title AS t, n.title = $names AS same, n.title <> $names AS differs ORDER BY t

// == typed_properties
MATCH (p:Project) RETURN p.title, p.started, p.budget, p.ndcg_at_10, p.active, p.priority ORDER BY p.started

// == list_property
MATCH (p:Person) WHERE 'Go' IN p.languages RETURN p.title, p.languages, size(p.languages)

// == date_comparison
MATCH (p:Person) WHERE p.joined >= date('2019-01-01') RETURN p.title, p.joined ORDER BY p.joined

// == datetime_property
MATCH (m:Meeting) WHERE m.start IS NOT NULL RETURN m.title, m.start, m.start.hour

// == conflicting_property_is_string
MATCH (n) WHERE n.date IS NOT NULL RETURN n.id, n.date ORDER BY n.id

// == stubs
MATCH (s) WHERE s.stub RETURN s.id, s.title, s.path, labels(s) ORDER BY s.id

// == links_to_stubs
MATCH (a)-[l:links_to]->(s {stub: true}) RETURN s.title, count(*) AS links, collect(DISTINCT a.title) AS from ORDER BY s.title

// == aliases_and_tags
MATCH (n) WHERE 'area/search' IN n.tags AND size(n.aliases) > 0 RETURN n.title, n.aliases ORDER BY n.title

// == folders
MATCH (n) WHERE NOT n.stub RETURN n.folder, count(*) AS notes ORDER BY n.folder

// == parameter_hits
// params: {"hits": ["People/Alice.md", "Projects/Search.md", "Nope.md"]}
MATCH (n) WHERE n.id IN $hits RETURN n.title ORDER BY n.title

// == parameter_hits_neighbours
// params: {"hits": ["Projects/Search.md"]}
MATCH (h)<-[r]-(x) WHERE h.id IN $hits AND type(r) <> 'links_to' RETURN type(r), x.title ORDER BY type(r), x.title

// == parameter_empty_list
// params: {"hits": []}
MATCH (n) WHERE n.id IN $hits RETURN n

// == parameter_scalars
// params: {"min": 60, "name": "Zoë", "flag": true}
MATCH (p {title: $name})-[c:contributes]->(x) WHERE c.hours >= $min AND $flag RETURN p.title, c.hours, x.title

// == parameter_null
// params: {"x": null}
RETURN $x AS x, $x IS NULL AS isnull, coalesce($x, 'fallback') AS c

// == optional_match
MATCH (p:Person) OPTIONAL MATCH (p)-[c:contributes]->(x) RETURN p.title, x.title, c.hours ORDER BY p.title, x.title

// == optional_match_aggregate
MATCH (p:Person) OPTIONAL MATCH (p)-[c:contributes]->(x) RETURN p.title, sum(c.hours) AS hours, collect(x.title) AS projects ORDER BY hours DESC, p.title

// == with_filter_aggregate
MATCH (p:Person)-[:authored]->(paper:Paper) WITH p, count(paper) AS papers WHERE papers > 1 RETURN p.title, papers ORDER BY papers DESC, p.title

// == aggregation_functions
MATCH (c:Company) RETURN count(c) AS n, sum(c.employees) AS total, avg(c.employees) AS mean, min(c.founded) AS oldest, max(c.founded) AS newest

// == count_distinct
MATCH (p:Person)-[:works_at]->(c) RETURN count(*) AS edges, count(DISTINCT c) AS companies, count(DISTINCT p) AS people

// == order_skip_limit
MATCH (p:Person) RETURN p.title ORDER BY p.title SKIP 2 LIMIT 3

// == order_by_projected_distinct
MATCH (p:Person)-[:works_at]->(c:Company) RETURN DISTINCT c.title ORDER BY c.title DESC

// == return_star
MATCH (a:Company {title: 'Globex'})-[r:competes_with]->(b) RETURN *

// == unwind
UNWIND ['Alice', 'Bob', 'Nobody'] AS name OPTIONAL MATCH (p:Person {title: name}) RETURN name, p.role ORDER BY name

// == union
MATCH (p:Person) WHERE p.title STARTS WITH 'A' RETURN p.title AS name UNION MATCH (c:Company) WHERE c.title STARTS WITH 'A' RETURN c.title AS name

// == union_all
MATCH (p:Person {title: 'Alice'}) RETURN p.title AS name UNION ALL MATCH (p:Person {title: 'Alice'}) RETURN p.title AS name

// == case_expression
MATCH (c:Company) RETURN c.title, CASE WHEN c.employees > 1000 THEN 'large' WHEN c.employees > 100 THEN 'medium' ELSE 'small' END AS size ORDER BY c.title

// == case_on_boolean_column
MATCH (p:Person) RETURN p.title, CASE WHEN p.active THEN 'active' ELSE 'gone' END AS state ORDER BY p.title

// == simple_case
MATCH (p:Project) RETURN p.title, CASE p.status WHEN 'active' THEN 1 WHEN 'paused' THEN 2 ELSE 3 END AS rank ORDER BY rank, p.title

// == string_functions
MATCH (p:Person {title: 'Alice'}) RETURN toUpper(p.role) AS up, toLower(p.title) AS low, substring(p.role, 0, 11) AS sub, replace(p.role, ' ', '_') AS rep, split(p.role, ' ') AS parts, left(p.title, 2) AS l, right(p.title, 3) AS r, reverse(p.title) AS rev, trim('  x  ') AS t, size(p.role) AS len, toString(p.joined) AS joined

// == string_predicates
MATCH (n) WHERE n.title CONTAINS 'Rank' OR n.title ENDS WITH 'Crawling' RETURN n.title ORDER BY n.title

// == regex
MATCH (n) WHERE n.title =~ '(?i)^[a-c].*' AND NOT n.stub RETURN n.title ORDER BY n.title

// == regex_unicode
MATCH (n) WHERE n.title =~ '.*[ëÜ].*' RETURN n.title ORDER BY n.title

// == list_functions
MATCH (b:Person {title: 'Bob'}) RETURN b.languages[0] AS first, b.languages[-1] AS last, b.languages[1..] AS rest, head(b.languages) AS h, last(b.languages) AS l, tail(b.languages) AS t, b.languages[5] AS out_of_range, size(b.languages) AS n, reverse(b.languages) AS r

// == list_comprehension
MATCH (b:Person {title: 'Bob'}) RETURN [x IN b.languages WHERE x <> 'Go' | toLower(x)] AS langs, [x IN range(1, 5) WHERE x % 2 = 1] AS odd

// == quantifiers
MATCH (p:Paper) RETURN all(x IN [p.year] WHERE x > 2018) AS recent, any(t IN p.tags WHERE t = 'paper') AS tagged, none(x IN [p.year] WHERE x > 2030) AS none_future, single(x IN [1, 2, 3] WHERE x = p.year - 2020) AS single ORDER BY p.year

// == reduce
MATCH (p:Person)-[c:contributes]->() WITH p, collect(c.hours) AS hours RETURN p.title, reduce(total = 0, h IN hours | total + h) AS total ORDER BY total DESC

// == math_functions
RETURN abs(-3) AS a, ceil(1.2) AS c, floor(1.8) AS f, round(2.567, 2) AS r, sign(-2) AS s, sqrt(16.0) AS q, 7 / 2 AS idiv, 7 % 3 AS m, 2 ^ 10 AS p, toInteger(3.7) AS ti, toFloat('2.5') AS tf

// == exists_subquery
MATCH (p:Person) WHERE EXISTS { MATCH (p)-[:works_at]->(:Company {title: 'Initech'}) } RETURN p.title ORDER BY p.title

// == exists_pattern_predicate
MATCH (p:Person) WHERE NOT (p)-[:authored]->(:Paper) RETURN p.title ORDER BY p.title

// == count_subquery
MATCH (p:Paper) RETURN p.title, COUNT { MATCH (p)<-[:cites]-() } AS cited_by ORDER BY cited_by DESC, p.title

// == exists_function
MATCH (n:Project) RETURN n.title, exists(n.budget) AS has_budget ORDER BY n.title

// == variable_length_trail
MATCH (a:Project {title: 'Atlas'})-[:depends_on*1..3]->(b) RETURN b.title, b.stub ORDER BY b.title

// == variable_length_list_variable
MATCH (a:Project {title: 'Atlas'})-[r:depends_on*2..2]->(b) RETURN b.title, size(r) AS hops, [e IN r | type(e)] AS types ORDER BY b.title

// == variable_length_path
MATCH p = (a:Person {title: 'Mallory'})-[:knows*1..2]->(b) RETURN length(p) AS len, [n IN nodes(p) | n.title] AS names ORDER BY len, names[1]

// == trail_no_repeated_edge
MATCH (a:Person {title: 'Bob'})-[r:knows*1..4]-(b) RETURN count(*) AS paths, max(size(r)) AS longest

// == shortest_path
MATCH p = shortestPath((a:Person {title: 'Mallory'})-[*..6]-(b:Project {title: 'Atlas'})) RETURN length(p) AS len

// == all_shortest_paths
MATCH p = allShortestPaths((a:Person {title: 'Zoë'})-[:works_at|funds|leads|contributes*..4]-(b:Project {title: 'Ranking'})) RETURN length(p) AS len, count(*) AS paths

// == kuzu_shortest_syntax
MATCH (a:Person {title: 'Erin'})-[r:knows|works_at* SHORTEST 1..4]-(b:Person {title: 'Heidi'}) RETURN size(r) AS hops

// == relationship_uniqueness
MATCH (a:Person {title: 'Alice'})-[r1:knows]-(b)-[r2:knows]-(c) RETURN b.title, c.title ORDER BY b.title, c.title

// == path_object
MATCH p = (z:Person {title: 'Zoë'})-[:`mentored by`]->(a) RETURN p

// == start_end_nodes
MATCH (:Company {title: 'Initech'})-[r:partners_with]->() RETURN startNode(r).title AS from, endNode(r).title AS to, r.since

// == null_semantics
RETURN null = null AS eq, null IS NULL AS isnull, 1 + null AS plus, null OR true AS orTrue, null AND false AS andFalse, [1, null][1] AS second, size(null) AS s

// == comparison_chain
MATCH (p:Paper) WHERE 2019 < p.year <= 2022 RETURN p.title ORDER BY p.year

// == db_labels
CALL db.labels()

// == db_relationship_types
CALL db.relationshipTypes() YIELD relationshipType WHERE relationshipType CONTAINS 'e' RETURN relationshipType

// == db_property_keys
CALL db.propertyKeys() YIELD propertyKey AS key WHERE key STARTS WITH 's' RETURN key

// == kuzu_show_functions
CALL show_functions() YIELD name AS fn WHERE fn STARTS WITH 'LIST_CON' RETURN DISTINCT fn ORDER BY fn

// == duration_arithmetic
MATCH (p:Project {title: 'Search'}) RETURN p.started + duration('P1Y2M3D') AS later, date('2024-05-01') > p.started AS before

// == row_cap
// max_rows: 3
MATCH (n) WHERE NOT n.stub RETURN n.id ORDER BY n.id

// == backquoted_identifiers
MATCH (`the person`:Person {title: 'Zoë'})-[`how`:`mentored by`]->(`the mentor`) RETURN `the person`.title AS `mentee name`, `the mentor`.title AS `mentor name`

// == unicode_names
MATCH (t:Topic) WHERE t.title STARTS WITH 'Ü' RETURN t.title, t.author, t.aliases

// == err_syntax
MATCH (p:Person RETURN p

// == err_syntax_multiline
MATCH (p:Person)
WHERE p.title = 'Alice' AND
RETURN p

// == err_unterminated_string
MATCH (p) WHERE p.title = 'Alice RETURN p

// == err_type_with_space
MATCH (z)-[r:mentored by]->(m) RETURN z.title, m.title

// == err_label_in_quotes
MATCH (p:'Person') RETURN p.title

// == err_keyword_variable
MATCH (order:Project) RETURN order.title

// == err_create
CREATE (:Person {title: 'Eve'})

// == err_merge
MERGE (p:Person {title: 'Alice'}) RETURN p

// == err_set
MATCH (p:Person {title: 'Alice'}) SET p.role = 'ceo' RETURN p

// == err_delete
MATCH (p:Person {title: 'Mallory'}) DETACH DELETE p

// == err_remove
MATCH (p:Person) REMOVE p.role RETURN p

// == err_load_csv
LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line

// == err_copy
COPY (MATCH (n) RETURN n) TO '/tmp/out.csv'

// == err_call_write
CALL create_fts_index('Note', 'notes', ['title'])

// == err_call_show_tables
CALL show_tables() RETURN *

// == err_call_table_info
CALL table_info('Note') RETURN name, type

// == err_label_function
MATCH ()-[r:leads]->() RETURN label(r)

// == err_call_setting
CALL timeout = 0

// == err_install
INSTALL httpfs

// == err_pattern_comprehension
MATCH (p:Person) RETURN [(p)-[:knows]->(f) | f.title] AS friends

// == err_missing_parameter
MATCH (n) WHERE n.id IN $hits RETURN n

// == err_undefined_variable
MATCH (p:Person) RETURN q.title

// == err_runtime_type
MATCH (p:Person) RETURN p.title + 1

// == err_range_too_large
UNWIND range(1, 100000000) AS x RETURN sum(x)

// == err_timeout
// timeout: 20ms
MATCH (a), (b), (c), (d), (e), (f) WHERE a.title < b.title AND b.title < c.title AND c.title < d.title AND d.title < e.title AND e.title < f.title RETURN count(*)

// == err_unbounded_paths
MATCH (a)-[*1..12]-(b) RETURN count(*)

// == optional_null_objects
MATCH (a:Person {title: 'Alice'}) OPTIONAL MATCH p = (a)-[r:funds]->(b) RETURN p, r, b, nodes(p), length(p), startNode(r), properties(b), keys(r), labels(b)

// == optional_null_variable_length
MATCH (a:Person {title: 'Alice'}) OPTIONAL MATCH (a)-[r:funds*1..2]->(b) RETURN r, size(r), [x IN r | x.amount] AS amounts

// == path_through_with
MATCH p = (a:Person {title: 'Bob'})-[:contributes]->(x) WITH p ORDER BY x.title DESC RETURN collect(length(p)) AS lengths, collect([n IN nodes(p) | n.title]) AS names
