package snapshot

import (
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/vaultgraph/vaultgraph/format"
)

// Column-wise decoding of the tables an edit reads whole (links, notes,
// chunks): each column chunk's pages are walked once with their
// definition and repetition levels, and a column's strings are cut from
// one string per page instead of being allocated one by one. parquet-go's
// generic reader builds a row of values for every row and reconstructs
// the struct from it through reflection; for the links of the 10,000-note
// vault that took several times as long, most of it in the properties'
// eight columns, empty in nearly every row.
//
// decodeByColumn handles the field types of those tables: strings
// (required or optional), int32, int64, bool, times as
// timestamp(millisecond) (required or optional), lists of strings and
// lists of format.Property. Any other field, or a file whose column is not
// shaped as the field expects, makes it report false, for the caller to
// fall back on the generic reader.

// fieldKind is what decodeByColumn decodes a field as.
type fieldKind int

const (
	kindString fieldKind = iota
	kindInt32
	kindInt64
	kindBool
	kindStrings
	kindProperties
	kindTime // time.Time as timestamp(millisecond), UTC
)

// columnField is one field of a row type: its column name, where it is
// in the struct and how it is decoded.
type columnField struct {
	name     string
	offset   uintptr
	kind     fieldKind
	optional bool
}

var (
	propertiesType = reflect.TypeFor[[]format.Property]()
	columnPlans    sync.Map // reflect.Type -> []columnField, nil if unsupported
)

// columnPlan returns the fields of t, a struct, or nil when one of them is
// not a type decodeByColumn decodes.
func columnPlan(t reflect.Type) []columnField {
	if p, ok := columnPlans.Load(t); ok {
		return p.([]columnField)
	}
	var plan []columnField
	if t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("parquet")
			if tag == "-" {
				continue
			}
			opts := strings.Split(tag, ",")
			name := opts[0]
			if name == "" || !f.IsExported() {
				plan = nil
				break
			}
			cf := columnField{name: name, offset: f.Offset}
			for _, o := range opts[1:] {
				switch o {
				case "optional":
					cf.optional = true
				case "plain", "dict", "list":
				case "timestamp(millisecond)":
					cf.kind = kindTime
				default:
					cf.name = "" // an option decodeByColumn does not know
				}
			}
			switch {
			case cf.kind == kindTime:
				if f.Type != timeType {
					cf.name = ""
				}
			case f.Type.Kind() == reflect.String:
				cf.kind = kindString
			case f.Type.Kind() == reflect.Int32:
				cf.kind = kindInt32
			case f.Type.Kind() == reflect.Int64:
				cf.kind = kindInt64
			case f.Type.Kind() == reflect.Bool:
				cf.kind = kindBool
			case f.Type == reflect.TypeFor[[]string]() && !cf.optional:
				cf.kind = kindStrings
			case f.Type == propertiesType && !cf.optional:
				cf.kind = kindProperties
			default:
				cf.name = ""
			}
			if cf.name == "" || (cf.optional && cf.kind != kindString && cf.kind != kindTime) {
				plan = nil
				break
			}
			plan = append(plan, cf)
		}
	}
	columnPlans.Store(t, plan)
	return plan
}

// leafShape is a leaf column as decodeByColumn expects to find it.
type leafShape struct {
	path     []string
	kind     parquet.Kind
	rep, def int
}

// lookupLeaf returns the index of the leaf column at want.path, or false
// when the file has none or it is shaped otherwise.
func lookupLeaf(schema *parquet.Schema, want leafShape) (int, bool) {
	leaf, ok := schema.Lookup(want.path...)
	if !ok || !leaf.Node.Leaf() || leaf.Node.Type().Kind() != want.kind ||
		leaf.MaxRepetitionLevel != want.rep || leaf.MaxDefinitionLevel != want.def {
		return 0, false
	}
	return leaf.ColumnIndex, true
}

// propertyLeaves are the leaf columns of a list of format.Property under
// the list's column name, in decoding order (key first: it says how many
// properties each row has).
func propertyLeaves(name string) []leafShape {
	el := []string{name, "list", "element"}
	at := func(rest ...string) []string { return append(append([]string(nil), el...), rest...) }
	return []leafShape{
		{at("key"), parquet.ByteArray, 1, 1},
		{at("kind"), parquet.ByteArray, 1, 1},
		{at("text"), parquet.ByteArray, 1, 2},
		{at("number"), parquet.Double, 1, 2},
		{at("bool"), parquet.Boolean, 1, 2},
		{at("date"), parquet.Int32, 1, 2},
		{at("datetime"), parquet.Int64, 1, 2},
		{at("list", "list", "element"), parquet.ByteArray, 2, 4},
	}
}

// errNotColumnar stops decodeByColumn when a page is not as the schema
// said (levels missing, values short): the caller decodes generically.
var errNotColumnar = errors.New("column not decodable by column")

// decodeByColumn decodes every row of pf into rows (len(rows) ==
// pf.NumRows()). It reports false, having changed nothing the caller
// keeps, when T or the file is not one it decodes.
func decodeByColumn[T any](pf *parquet.File, rows []T) (bool, error) {
	plan := columnPlan(reflect.TypeFor[T]())
	if plan == nil {
		return false, nil
	}
	schema := pf.Schema()
	type job struct {
		f      columnField
		leaves []int
	}
	jobs := make([]job, 0, len(plan))
	for _, f := range plan {
		var shapes []leafShape
		switch f.kind {
		case kindString:
			def := 0
			if f.optional {
				def = 1
			}
			shapes = []leafShape{{[]string{f.name}, parquet.ByteArray, 0, def}}
		case kindInt32:
			shapes = []leafShape{{[]string{f.name}, parquet.Int32, 0, 0}}
		case kindInt64:
			shapes = []leafShape{{[]string{f.name}, parquet.Int64, 0, 0}}
		case kindTime:
			def := 0
			if f.optional {
				def = 1
			}
			shapes = []leafShape{{[]string{f.name}, parquet.Int64, 0, def}}
		case kindBool:
			shapes = []leafShape{{[]string{f.name}, parquet.Boolean, 0, 0}}
		case kindStrings:
			shapes = []leafShape{{[]string{f.name, "list", "element"}, parquet.ByteArray, 1, 1}}
		case kindProperties:
			shapes = propertyLeaves(f.name)
		}
		j := job{f: f}
		for _, s := range shapes {
			col, ok := lookupLeaf(schema, s)
			if !ok {
				return false, nil
			}
			j.leaves = append(j.leaves, col)
		}
		jobs = append(jobs, j)
	}
	var zero T
	base, stride := unsafe.Pointer(unsafe.SliceData(rows)), unsafe.Sizeof(zero)
	for _, j := range jobs {
		at := func(row int) unsafe.Pointer { return unsafe.Add(base, uintptr(row)*stride+j.f.offset) }
		var err error
		switch j.f.kind {
		case kindString, kindInt32, kindInt64, kindBool, kindTime:
			err = decodeFlat(pf, j.leaves[0], j.f, len(rows), at)
		case kindStrings:
			err = decodeStringLists(pf, j.leaves[0], len(rows), at)
		case kindProperties:
			err = decodeProperties(pf, j.leaves, len(rows), at)
		}
		if errors.Is(err, errNotColumnar) {
			clear(rows)
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
	return true, nil
}

// eachPage calls fn with every page of column col, row group by row group.
func eachPage(pf *parquet.File, col int, fn func(p parquet.Page) error) error {
	for _, rg := range pf.RowGroups() {
		pages := rg.ColumnChunks()[col].Pages()
		for {
			p, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				pages.Close()
				return err
			}
			err = fn(p)
			// fn copies what it keeps: the page's buffers go back to
			// parquet-go's pool for the next page to decompress into.
			parquet.Release(p)
			if err != nil {
				pages.Close()
				return err
			}
		}
		if err := pages.Close(); err != nil {
			return err
		}
	}
	return nil
}

// stringsOf returns the non-null values of p as strings, sharing memory.
func stringsOf(p parquet.Page, dicts map[parquet.Dictionary][]string) ([]string, error) {
	data := p.Data()
	if d := p.Dictionary(); d != nil {
		words, ok := dicts[d]
		if !ok {
			words = make([]string, d.Len())
			for i := range words {
				words[i] = string(d.Index(int32(i)).ByteArray())
			}
			dicts[d] = words
		}
		idx := data.Int32()
		out := make([]string, len(idx))
		for i, x := range idx {
			if x < 0 || int(x) >= len(words) {
				return nil, errNotColumnar
			}
			out[i] = words[x]
		}
		return out, nil
	}
	if data.Kind() != encoding.ByteArray {
		return nil, errNotColumnar
	}
	b, offsets := data.ByteArray()
	if len(offsets) == 0 {
		return nil, nil
	}
	all := string(b)
	out := make([]string, len(offsets)-1)
	for i := range out {
		lo, hi := offsets[i], offsets[i+1]
		if lo > hi || int(hi) > len(all) {
			return nil, errNotColumnar
		}
		out[i] = all[lo:hi]
	}
	return out, nil
}

// decodeFlat decodes a column of one value per row.
func decodeFlat(pf *parquet.File, col int, f columnField, n int, at func(int) unsafe.Pointer) error {
	row := 0
	dicts := map[parquet.Dictionary][]string{}
	buf := make([]parquet.Value, 256)
	err := eachPage(pf, col, func(p parquet.Page) error {
		switch f.kind {
		case kindString:
			vals, err := stringsOf(p, dicts)
			if err != nil {
				return err
			}
			defs := p.DefinitionLevels()
			if !f.optional {
				if defs != nil || row+len(vals) > n {
					return errNotColumnar
				}
				for _, s := range vals {
					*(*string)(at(row)) = s
					row++
				}
				return nil
			}
			if row+len(defs) > n {
				return errNotColumnar
			}
			k := 0
			for _, d := range defs {
				if d == 1 {
					if k >= len(vals) {
						return errNotColumnar
					}
					*(*string)(at(row)) = vals[k]
					k++
				}
				row++
			}
			if k != len(vals) {
				return errNotColumnar
			}
			return nil
		default:
			// int32, int64, bool, time: read as values, which also
			// unpacks booleans' bits and gives an optional column's nulls.
			r := p.Values()
			for {
				k, err := r.ReadValues(buf)
				if row+k > n {
					return errNotColumnar
				}
				for _, v := range buf[:k] {
					if v.IsNull() {
						if !f.optional {
							return errNotColumnar
						}
						row++ // the zero value
						continue
					}
					switch f.kind {
					case kindTime:
						*(*time.Time)(at(row)) = time.UnixMilli(v.Int64()).UTC()
					case kindInt32:
						*(*int32)(at(row)) = v.Int32()
					case kindInt64:
						*(*int64)(at(row)) = v.Int64()
					case kindBool:
						*(*bool)(at(row)) = v.Boolean()
					}
					row++
				}
				if errors.Is(err, io.EOF) {
					return nil
				}
				if err != nil {
					return err
				}
			}
		}
	})
	if err == nil && row != n {
		err = errNotColumnar
	}
	return err
}

// levelsOf returns the repetition and definition levels of a page of a
// repeated column, failing unless there is one of each per entry.
func levelsOf(p parquet.Page) (reps, defs []byte, err error) {
	reps, defs = p.RepetitionLevels(), p.DefinitionLevels()
	if len(reps) != len(defs) {
		return nil, nil, errNotColumnar
	}
	return reps, defs, nil
}

// boolsOf returns the non-null values of a boolean page.
func boolsOf(p parquet.Page) ([]bool, error) {
	var out []bool
	buf := make([]parquet.Value, 256)
	r := p.Values()
	for {
		k, err := r.ReadValues(buf)
		for _, v := range buf[:k] {
			if !v.IsNull() {
				out = append(out, v.Boolean())
			}
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// decodeStringLists decodes a required list of required strings: a
// repetition level of 0 starts a row, a definition level of 1 is an
// element (0: the row's list is empty, which the generic reader reads as
// an empty list, not nil).
func decodeStringLists(pf *parquet.File, col int, n int, at func(int) unsafe.Pointer) error {
	row := -1
	dicts := map[parquet.Dictionary][]string{}
	err := eachPage(pf, col, func(p parquet.Page) error {
		reps, defs, err := levelsOf(p)
		if err != nil {
			return err
		}
		vals, err := stringsOf(p, dicts)
		if err != nil {
			return err
		}
		k := 0
		for i, d := range defs {
			if reps[i] == 0 {
				row++
			}
			if row < 0 || row >= n {
				return errNotColumnar
			}
			list := (*[]string)(at(row))
			if d == 1 {
				if k >= len(vals) {
					return errNotColumnar
				}
				*list = append(*list, vals[k])
				k++
			} else if *list == nil {
				*list = []string{}
			}
		}
		if k != len(vals) {
			return errNotColumnar
		}
		return nil
	})
	if err == nil && row != n-1 {
		err = errNotColumnar
	}
	return err
}

// decodeProperties decodes a required list of format.Property from its
// eight leaf columns (propertyLeaves). The key column makes the
// properties: a repetition level of 0 starts a row, a definition level
// of 1 is a property. Every other column has one entry with a
// definition level of at least 1 per property, in the same order (the
// list column one per item after the first, with a repetition level of
// 2).
func decodeProperties(pf *parquet.File, cols []int, n int, at func(int) unsafe.Pointer) error {
	row := -1
	dicts := map[parquet.Dictionary][]string{}
	err := eachPage(pf, cols[0], func(p parquet.Page) error {
		reps, defs, err := levelsOf(p)
		if err != nil {
			return err
		}
		keys, err := stringsOf(p, dicts)
		if err != nil {
			return err
		}
		k := 0
		for i, d := range defs {
			if reps[i] == 0 {
				row++
			}
			if row < 0 || row >= n {
				return errNotColumnar
			}
			list := (*[]format.Property)(at(row))
			if d == 1 {
				if k >= len(keys) {
					return errNotColumnar
				}
				*list = append(*list, format.Property{Key: keys[k]})
				k++
			} else if *list == nil {
				*list = []format.Property{}
			}
		}
		return nil
	})
	if err == nil && row != n-1 {
		err = errNotColumnar
	}
	if err != nil {
		return err
	}
	var props []*format.Property
	for i := range n {
		list := *(*[]format.Property)(at(i))
		for j := range list {
			props = append(props, &list[j])
		}
	}
	for c, col := range cols[1:] {
		c++ // index in propertyLeaves
		next := -1
		err := eachPage(pf, col, func(p parquet.Page) error {
			reps, defs, err := levelsOf(p)
			if err != nil {
				return err
			}
			present := 0 // entries with a value
			for _, d := range defs {
				if int(d) == propertyLeafDef(c) {
					present++
				}
			}
			var (
				strs   []string
				nums   []float64
				bools  []bool
				dates  []int32
				stamps []int64
			)
			if present > 0 {
				switch c {
				case 1, 2, 7:
					strs, err = stringsOf(p, dicts)
				case 3:
					// copies: the page's buffers are not ours to keep
					data := p.Data()
					nums = slices.Clone(data.Double())
				case 4:
					bools, err = boolsOf(p)
				case 5:
					data := p.Data()
					dates = slices.Clone(data.Int32())
				case 6:
					data := p.Data()
					stamps = slices.Clone(data.Int64())
				}
				if err != nil {
					return err
				}
				if got := len(strs) + len(nums) + len(bools) + len(dates) + len(stamps); got != present {
					return errNotColumnar
				}
			}
			k := 0
			for i, d := range defs {
				if d == 0 {
					continue // a row without properties
				}
				if c != 7 || reps[i] < 2 {
					next++
				}
				if next >= len(props) {
					return errNotColumnar
				}
				p := props[next]
				if c == 7 {
					// 1: no list; 2: an empty list; 3: a null item; 4: an item.
					if d >= 2 && p.List == nil {
						p.List = []*string{}
					}
					switch d {
					case 3:
						p.List = append(p.List, nil)
					case 4:
						p.List = append(p.List, &strs[k])
						k++
					}
					continue
				}
				if int(d) != propertyLeafDef(c) {
					continue // null
				}
				switch c {
				case 1:
					p.Kind = strs[k]
				case 2:
					p.TextValue = &strs[k]
				case 3:
					p.Number = &nums[k]
				case 4:
					p.Bool = &bools[k]
				case 5:
					p.Date = &dates[k]
				case 6:
					t := time.UnixMicro(stamps[k]).UTC()
					p.DateTime = &t
				}
				k++
			}
			return nil
		})
		if err == nil && next != len(props)-1 {
			err = errNotColumnar
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// propertyLeafDef is the definition level of a value of the c-th column of
// propertyLeaves.
func propertyLeafDef(c int) int { return propertyLeavesDef[c] }

var propertyLeavesDef = [...]int{1, 1, 2, 2, 2, 2, 2, 4}
