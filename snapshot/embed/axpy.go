package embed

// addScaled adds w times the int8 values of row to out[:len(row)], lane by
// lane: o += w*float32(r), the product rounded to float32 before the sum
// (the AVX2 kernel rounds the same way, so its vectors are the loop's bit
// for bit).
func addScaled(out []float32, row []int8, w float32) {
	o := out[:len(row)]
	j := 0
	if n := len(row) &^ 7; n > 0 && useAVX2 {
		addScaledAVX2(&o[0], &row[0], w, n)
		j = n
	}
	for ; j+4 <= len(row); j += 4 {
		o[j] += w * float32(row[j])
		o[j+1] += w * float32(row[j+1])
		o[j+2] += w * float32(row[j+2])
		o[j+3] += w * float32(row[j+3])
	}
	for ; j < len(row); j++ {
		o[j] += w * float32(row[j])
	}
}
